// The collector's durable state in $AGENTMETER_HOME/collector/state.json: transcript offsets, Droid's
// last cumulative token readings, the last successful ship. Written atomically (temporary file + rename),
// and only after the server acknowledged what the new state accounts for.

import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, writePrivateFile } from '../common/private-files.ts';

export const TokenTotals = z.object({
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  cacheCreationTokens: z.number().nonnegative(),
  cacheReadTokens: z.number().nonnegative(),
  thinkingTokens: z.number().nonnegative(),
});
export type TokenTotals = z.infer<typeof TokenTotals>;

/** Codex's cumulative total_token_usage (input includes the cached input; output includes reasoning). */
export const CodexTotals = z.object({
  input: z.number().nonnegative(),
  cached: z.number().nonnegative(),
  output: z.number().nonnegative(),
  reasoning: z.number().nonnegative(),
});
export type CodexTotals = z.infer<typeof CodexTotals>;

export const CollectorState = z.object({
  version: z.literal(1),
  /** Transcript path → byte offset of the first line not yet read. */
  transcripts: z.record(z.string(), z.object({ offset: z.number().int().nonnegative(), sessionId: z.string() })),
  /** Droid session → the cumulative tokenUsage at the last reading, and the settings file it came from. */
  droid: z.record(z.string(), z.object({ totals: TokenTotals, settingsPath: z.string().optional(), model: z.string().optional() })),
  /**
   * Codex rollout path → the cumulative token_count total at the last reading (its fields as Codex names
   * them), the model of the latest turn_context, and how many assistant messages were read (their ids).
   * Absent in state files written before Codex support.
   */
  codex: z
    .record(
      z.string(),
      z.object({
        totals: CodexTotals.nullable(),
        model: z.string().optional(),
        messages: z.number().int().nonnegative(),
        sessionId: z.string(),
        /** The session whose session_meta came last: its totals are what follows (forks copy ancestors'). */
        owner: z.string().optional(),
      }),
    )
    .default({}),
  lastShipAt: z.number().nullable(),
  lastShipRecords: z.number().int().nonnegative(),
  totalShipped: z.number().int().nonnegative(),
  lastError: z.string().nullable(),
  lastErrorAt: z.number().nullable(),
});
export type CollectorState = z.infer<typeof CollectorState>;

export const emptyState = (): CollectorState => ({
  version: 1,
  transcripts: {},
  droid: {},
  codex: {},
  lastShipAt: null,
  lastShipRecords: 0,
  totalShipped: 0,
  lastError: null,
  lastErrorAt: null,
});

export const statePath = (agentmeterHome: string) => join(agentmeterHome, 'collector', 'state.json');

export type LoadedState = { state: CollectorState; problem?: string };

/** Loads the state; a corrupt file is set aside (never deleted) and the collector starts fresh. */
export function loadState(agentmeterHome: string): LoadedState {
  const path = statePath(agentmeterHome);
  if (!existsSync(path)) return { state: emptyState() };
  try {
    const parsed = CollectorState.safeParse(JSON.parse(readFileSync(path, 'utf8')));
    if (parsed.success) return { state: parsed.data };
    throw new Error(parsed.error.issues[0]?.message ?? 'invalid');
  } catch (error) {
    const aside = `${path}.corrupt-${Date.now()}`;
    renameSync(path, aside);
    return { state: emptyState(), problem: `state file was unreadable (${(error as Error).message}); set aside as ${aside}` };
  }
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
