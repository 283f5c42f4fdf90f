// Codex CLI's hook context. Autonomy: its hooks send Claude Code's permission_mode names (the payload
// schema's enum default|acceptEdits|plan|dontAsk|bypassPermissions), mapped as Claude Code's (docs/metrics.md §1).
//
// Headless (`codex exec`): nothing in the hook's environment says so. The hook reads its ancestors' command
// lines (codex_exec=1 for `codex exec …`), which misses `codex -m x exec` and the `codex e` alias. Codex
// itself writes how the session was started into the first line of its rollout: session_meta.payload.source
// is "exec" for `codex exec`, whatever the command line; the collector reads that line from the payload's
// transcript_path (the rollout) once per rollout. Either signal makes the event non-interactive.
import type { AutonomyLevel } from '../../../common/wire.ts';
import { autonomyLevel } from '../../derive.ts';
import { parseJsonLine, readNewLines } from '../../transcript.ts';
import type { HookPayload } from '../hook-payload.ts';
import { isCompressedRollout } from './paths.ts';
import { RolloutLine, SessionMetaPayload } from './schema.ts';

export const codexAutonomy = (permissionMode: unknown): AutonomyLevel => autonomyLevel('claude', permissionMode);

/** session_meta can hold the base instructions (tens of KB): the first line is looked for in this much. */
const FIRST_LINE_LIMIT = 1024 * 1024;
const sources = new Map<string, string>();

/** Pure: the session source named by a rollout's first line ("exec", "cli", …), if it is a session_meta. */
export function sessionSourceOf(firstLine: string): string | undefined {
  const line = RolloutLine.safeParse(parseJsonLine(firstLine));
  if (!line.success || line.data.type !== 'session_meta') return undefined;
  const meta = SessionMetaPayload.safeParse(line.data.payload);
  if (!meta.success) return undefined;
  const source = meta.data.source;
  // A subagent's source is an object ({"subagent": …}); it runs inside its parent's session.
  return typeof source === 'string' ? source : source && typeof source === 'object' ? 'subagent' : undefined;
}

/** The session source of a rollout, read once per rollout (a rollout's first line never changes). */
export function rolloutSource(path: string): string | undefined {
  const known = sources.get(path);
  if (known !== undefined) return known;
  if (isCompressedRollout(path)) return undefined;
  // No complete first line yet (Codex is still writing it): ask again with the next event.
  const first = readNewLines(path, undefined, FIRST_LINE_LIMIT)?.lines[0];
  const source = first === undefined ? undefined : sessionSourceOf(first);
  if (source !== undefined) {
    if (sources.size >= 10_000) sources.clear();
    sources.set(path, source);
  }
  return source;
}

/**
 * `codex exec`: the hook saw it among its ancestors (codex_exec=1: cheap, but hidden by options before
 * `exec`), or the rollout says so (exact, but only once Codex has written the rollout's first line).
 */
export function codexHeadless(header: Record<string, string>, payload?: HookPayload): boolean {
  if (header['codex_exec'] === '1') return true;
  const path = payload?.transcript_path;
  return typeof path === 'string' && path !== '' && rolloutSource(path) === 'exec';
}
