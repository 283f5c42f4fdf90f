// The collector's durable state in $AGENTMETER_HOME/collector/state.json: each agent's reading progress
// (a piece its adapter owns: offsets, running totals, message counts) and the last successful ship.
// Written atomically (temporary file + rename), and only after the server acknowledged what the new state
// accounts for.

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { AGENTS, type Agent } from '../common/agents.ts';
import { ensurePrivateDir, writePrivateFile } from '../common/private-files.ts';
import { isRolloutPath } from './agents/codex/paths.ts';
import { ADAPTERS } from './agents/index.ts';
import { TranscriptOffsets } from './transcript.ts';

/** Every agent's piece of the state, typed by its adapter (collector/agents/index.ts). */
/** Each agent's piece of the state, as its adapter's `usage.state` schema reads it (pieceOf gives it its type). */
export type AgentStates = Record<Agent, unknown>;

export interface CollectorState {
  version: 2;
  /** Each agent's reading progress (offsets, running totals, message counts), owned by its adapter. */
  agents: AgentStates;
  lastShipAt: number | null;
  lastShipRecords: number;
  totalShipped: number;
  lastError: string | null;
  lastErrorAt: number | null;
  dropped: Record<string, number>;
}

/** What the file holds around the agents' pieces; each piece is checked by its own adapter's schema. */
const ShipFields = z.object({
  lastShipAt: z.number().nullable(),
  lastShipRecords: z.number().int().nonnegative(),
  totalShipped: z.number().int().nonnegative(),
  lastError: z.string().nullable(),
  lastErrorAt: z.number().nullable(),
  /** Events read and not shipped on purpose (another host ran an agent's hook), counted by reason. */
  dropped: z.record(z.string(), z.number().int().nonnegative()).default({}),
});
export type ShipFields = z.infer<typeof ShipFields>;

const StateFileV2 = ShipFields.extend({ version: z.literal(2), agents: z.record(z.string(), z.unknown()) });

/**
 * Version 1 (before each agent owned its piece): one offsets map for every agent, Droid's totals, and
 * Codex's readings, which were never saved (the Codex bug of issue #29).
 */
const StateFileV1 = ShipFields.extend({
  version: z.literal(1),
  transcripts: TranscriptOffsets,
  droid: z.record(z.string(), z.unknown()),
});

export const emptyAgentStates = (): AgentStates =>
  Object.fromEntries(AGENTS.map((agent) => [agent, ADAPTERS[agent].usage.empty()])) as AgentStates;

export const emptyState = (): CollectorState => ({
  version: 2,
  agents: emptyAgentStates(),
  lastShipAt: null,
  lastShipRecords: 0,
  totalShipped: 0,
  lastError: null,
  lastErrorAt: null,
  dropped: {},
});

/**
 * Pure: the state once a batch is acknowledged: every agent's reading progress from the batch's draft (all
 * agents as one, so none can be forgotten), the ship counters from now, the batch's dropped events counted.
 */
export function committedState(
  current: CollectorState,
  next: CollectorState,
  shipped: number,
  now: number,
  droppedReasons: string[] = [],
): CollectorState {
  const dropped = { ...current.dropped };
  for (const reason of droppedReasons) dropped[reason] = (dropped[reason] ?? 0) + 1;
  return {
    ...current,
    agents: next.agents,
    dropped,
    lastShipAt: shipped > 0 ? now : current.lastShipAt,
    lastShipRecords: shipped > 0 ? shipped : current.lastShipRecords,
    totalShipped: current.totalShipped + shipped,
    lastError: null,
    lastErrorAt: null,
  };
}

/**
 * Pure: a version 1 file as version 2. Codex rollouts are read again from the start: version 1 kept their
 * offsets but lost their running totals, and going on from there is what over-counted (the server stores
 * each call once, by id, so the re-read adds nothing twice). Droid keeps its totals. The other offsets
 * carried no agent: every other agent gets them (each looks up only the files it reads).
 */
export function migrateV1(v1: z.infer<typeof StateFileV1>): { agents: Record<string, unknown>; ship: ShipFields } {
  const { version: _version, transcripts, droid, ...ship } = v1;
  const offsets = Object.fromEntries(Object.entries(transcripts).filter(([path]) => !isRolloutPath(path)));
  const agents: Record<string, unknown> = {};
  for (const agent of AGENTS) if (agent !== 'codex') agents[agent] = { transcripts: offsets };
  agents['droid'] = { sessions: droid, transcripts: offsets };
  return { agents, ship };
}

/** Each agent's piece from the file, checked by its adapter; a piece that fails starts empty, named in `problems`. */
function agentStates(saved: Record<string, unknown>, problems: string[]): AgentStates {
  const states = emptyAgentStates() as Record<Agent, unknown>;
  for (const agent of AGENTS) {
    if (saved[agent] === undefined) continue;
    const parsed = ADAPTERS[agent].usage.state.safeParse(saved[agent]);
    if (parsed.success) states[agent] = parsed.data;
    else problems.push(`${agent}'s part of the state was unreadable (${parsed.error.issues[0]?.message ?? 'invalid'}); it starts over`);
  }
  return states as AgentStates;
}

/** Pure: the ship facts of a saved state file of any version (what `doctor` shows). */
export function parseShipFields(json: unknown): ShipFields {
  return ShipFields.parse(json);
}

export const statePath = (agentmeterHome: string) => join(agentmeterHome, 'collector', 'state.json');

export type LoadedState = { state: CollectorState; problem?: string };

/** The state as read, changing nothing: `unreadable` says why a file that is there could not be read. */
export type ReadState = LoadedState & { unreadable?: string };

/**
 * Reads the state without changing anything (what `collect status` shows). An agent's unreadable piece
 * starts over alone; an agent the file does not know yet starts empty; a file unreadable as a whole reads
 * as a fresh state, with the reason in `unreadable`.
 */
export function readState(agentmeterHome: string): ReadState {
  const path = statePath(agentmeterHome);
  if (!existsSync(path)) return { state: emptyState() };
  try {
    const json: unknown = JSON.parse(readFileSync(path, 'utf8'));
    const v2 = StateFileV2.safeParse(json);
    const v1 = v2.success ? undefined : StateFileV1.safeParse(json);
    if (!v2.success && !v1?.success) throw new Error((v1?.error ?? v2.error).issues[0]?.message ?? 'invalid');
    let saved: { agents: Record<string, unknown>; ship: ShipFields };
    if (v2.success) {
      const { version: _version, agents, ...ship } = v2.data;
      saved = { agents, ship };
    } else saved = migrateV1(v1!.data!);
    const { agents, ship } = saved;
    const problems: string[] = [];
    const state: CollectorState = { version: 2, agents: agentStates(agents, problems), ...ship };
    return problems.length ? { state, problem: problems.join('; ') } : { state };
  } catch (error) {
    return { state: emptyState(), unreadable: (error as Error).message };
  }
}

/**
 * Loads the state for a collector that runs; a corrupt file is set aside (never deleted) and the
 * collector starts fresh.
 */
export function loadState(agentmeterHome: string): LoadedState {
  const { unreadable, ...read } = readState(agentmeterHome);
  if (unreadable === undefined) return read;
  const path = statePath(agentmeterHome);
  const aside = `${path}.corrupt-${Date.now()}`;
  renameSync(path, aside);
  return { state: emptyState(), problem: `state file was unreadable (${unreadable}); set aside as ${aside}` };
}

export function saveState(agentmeterHome: string, state: CollectorState): void {
  const path = statePath(agentmeterHome);
  ensurePrivateDir(agentmeterHome);
  ensurePrivateDir(dirname(path));
  writePrivateFile(path, JSON.stringify(state));
}

/**
 * A random id for this machine, created once. It prefixes event ids so spool names from two machines of
 * one user can never collide; kept apart from state.json so losing the state does not change it.
 */
export function machineId(agentmeterHome: string): string {
  const path = join(agentmeterHome, 'machine-id');
  try {
    const id = readFileSync(path, 'utf8').trim();
    if (/^[0-9a-f]{16}$/.test(id)) return id;
  } catch {
    // Created below.
  }
  ensurePrivateDir(agentmeterHome);
  const id = randomBytes(8).toString('hex');
  writePrivateFile(path, `${id}\n`);
  return id;
}
