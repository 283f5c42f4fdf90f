// Where Codex CLI keeps its files: session rollouts at $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local
// time>-<session id>.jsonl (archived ones under $CODEX_HOME/archived_sessions/). The hook payload's
// transcript_path names the rollout; it is null when the session keeps none.
import { readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { codexHome } from '../../install/settings.ts';

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
