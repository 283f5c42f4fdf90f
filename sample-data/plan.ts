// The shapes a sample plan is made of, shared by the generator (generator.ts) and each agent's own
// sample (collector/agents/<agent>/sample.ts): the people, the events as the hook receives them, the
// files written before them, and the one signature every agent's session generator has.
import type { Agent } from '../common/agents.ts';

export interface SampleOptions {
  seed: number;
  /** The last day with activity (YYYY-MM-DD); the plan covers `days` days up to it. */
  lastDay: string;
  days: number;
  users: number;
}

export interface SampleUser {
  email: string;
  role: 'owner' | 'manager' | 'member' | 'guest';
  agents: Agent[];
  /** Probability of working on a weekday. */
  activity: number;
  /** The kind of work they do (which files they touch): the sample's teams follow it. */
  team: string;
}

/** A file write the replay performs before running the hook (transcripts, Droid session settings). */
export interface FileOp {
  /** Path relative to the user's HOME. */
  path: string;
  /** Appended (transcript lines) or replaced (a settings file). */
  mode: 'append' | 'replace';
  content: string;
}

export interface PlannedEvent {
  at: number;
  agent: Agent;
  /** Extra environment of the hook (client hints). */
  env: Record<string, string>;
  /** The payload, with HOME-relative paths written as "~/…" (the replay expands them). */
  payload: Record<string, unknown>;
  before: FileOp[];
}

export interface SamplePlan {
  users: SampleUser[];
  /** Per user (same order), events in time order. */
  events: PlannedEvent[][];
  /** Per user: extra hooks configured in their settings besides ours (counted in hooks_by_event). */
  extraHooks: { agent: Agent; event: string; matcher: string; command: string }[][];
}

/** The kinds of work people do: each team's file extensions. */
export const TEAMS = {
  frontend: ['tsx', 'ts', 'css', 'scss', 'html', 'json', 'md'],
  backend: ['go', 'py', 'sql', 'proto', 'yaml', 'md'],
  platform: ['tf', 'sh', 'yaml', 'py', 'Dockerfile', 'Makefile'],
  mobile: ['swift', 'kt', 'java', 'json', 'gradle'],
  data: ['py', 'ipynb', 'sql', 'scala', 'csv'],
} as const;

export type Team = keyof typeof TEAMS;

/** A person of the sample as the agents' generators see them. */
export interface Persona {
  user: Omit<SampleUser, 'team'>;
  team: Team;
  claudeMode: string;
  droidMode: string;
  headlessShare: number;
  webShare: number;
  mcpLover: boolean;
}

/** What a session generator draws from: its agent's random stream, the person and their index. */
export interface SampleContext {
  /** The agent's own stream when it has one (AgentSample.stream), else the plan's. */
  r: () => number;
  p: Persona;
  u: number;
}

/** One session of an agent from `start` (ms): its planned events in time order and when it ends. */
export type SampleSession = (ctx: SampleContext, start: number) => { events: PlannedEvent[]; end: number };

/** An agent's part of the demo organization (the default export of collector/agents/<agent>/sample.ts). */
export interface AgentSample {
  session: SampleSession;
  /**
   * Whether the sample's user number `index` uses this agent besides the ones drawn for them (Claude Code,
   * Droid, Gemini CLI and Qwen Code are drawn for each user); absent: only users drawn with it.
   */
  alsoUsedBy?: (index: number) => boolean;
  /**
   * A salt of the seed for a random stream of the agent's own: its sessions then draw from it, so adding
   * or changing this agent's sessions leaves every other agent's draws as they were.
   */
  stream?: number;
  /**
   * Its usage is dated when the collector reads it, not by lines of its own (Droid's cumulative settings
   * file): the replay then ships at each midnight a session of it goes on past, as a running collector would.
   */
  usageDatedAtReading?: boolean;
}
