// What every agent adapter provides (the same layers for each agent: paths, schema, events, usage).
import type { AgentName, AutonomyLevel, WireRecord } from '../../common/wire.ts';
import type { CollectorState } from '../state.ts';

/** A session seen in a batch, with what its usage reader needs. */
export interface SessionTouch {
  sessionId: string;
  /** Time of the latest event of this session in the batch (usage read now is dated here for Droid). */
  latestTs: number;
  transcriptPaths: Set<string>;
}

export interface UsageReadResult {
  records: WireRecord[];
  /** Lines or files that could not be used, with why (logged; the rest still ships). */
  problems: string[];
}

export interface AgentAdapter {
  readonly name: Exclude<AgentName, 'unknown'>;
  autonomy(permissionMode: unknown): AutonomyLevel;
  /** The hook's header says the agent ran headless. */
  headless(header: Record<string, string>): boolean;
  /**
   * Reads the usage and assistant messages that appeared since the last reading. It updates `state`
   * (a draft the caller saves only after the server acknowledged the records).
   */
  readUsage(session: SessionTouch, state: CollectorState, home: string): UsageReadResult;
}
