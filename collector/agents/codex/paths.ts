// Where Codex CLI keeps its files: session rollouts at $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local
// time>-<session id>.jsonl (archived ones under $CODEX_HOME/archived_sessions/). The hook payload's
// transcript_path names the rollout; it is null when the session keeps none.
import { readdirSync, realpathSync } from 'node:fs';
import { basename, join } from 'node:path';

/** Codex CLI's home: $CODEX_HOME, else ~/.codex (its config.toml, hooks.json and session rollouts). */
export function codexHome(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env['CODEX_HOME']?.trim();
  return fromEnv ? fromEnv : join(home, '.codex');
}

/**
 * Codex CLI's home as Codex itself names it in hook trust keys: a CODEX_HOME it was given is
 * canonicalized (links resolved; codex-rs/utils/home-dir), the default ~/.codex is taken as it is.
 */
export function codexHomeAsCodexNamesIt(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const dir = codexHome(home, env);
  if (!env['CODEX_HOME']?.trim()) return dir;
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/** A rollout file name: rollout-<time>-<uuid>.jsonl, or .jsonl.zst when compressed. */
export const isRolloutPath = (path: string): boolean => /^rollout-.+\.jsonl(\.zst)?$/.test(basename(path));

/** Compressed rollouts (zstd): Node 20 has no zstd decoder, so their usage cannot be read. */
export const isCompressedRollout = (path: string): boolean => path.endsWith('.jsonl.zst');

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * The rollout of a session found by its id in the file name, newest day first (sessions/YYYY/MM/DD, then
 * archived_sessions). Used when the payload did not name it.
 */
export function findCodexRollout(home: string, sessionId: string): string | undefined {
  const root = codexHome(home);
  const wanted = (name: string) =>
    name.startsWith('rollout-') && (name.endsWith(`-${sessionId}.jsonl`) || name.endsWith(`-${sessionId}.jsonl.zst`));
  const sessions = join(root, 'sessions');
  const desc = (names: string[]) => names.filter((n) => /^\d+$/.test(n)).sort((a, b) => b.localeCompare(a));
  for (const year of desc(listDir(sessions))) {
    for (const month of desc(listDir(join(sessions, year)))) {
      for (const day of desc(listDir(join(sessions, year, month)))) {
        const dir = join(sessions, year, month, day);
        const found = listDir(dir).find(wanted);
        if (found) return join(dir, found);
      }
    }
  }
  const archived = join(root, 'archived_sessions');
  const found = listDir(archived).find(wanted);
  return found ? join(archived, found) : undefined;
}
