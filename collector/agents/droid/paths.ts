// Where Droid keeps its files: ~/.factory/sessions/<project>/<session_id>.settings.json (cumulative
// tokenUsage and model) and the transcript named by the hook payload (transcript_path).
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export const droidSessionsDir = (home: string) => join(home, '.factory', 'sessions');

/** Finds <sessionId>.settings.json under the sessions folder (at most three levels deep). */
export function findDroidSettingsFile(home: string, sessionId: string): string | undefined {
  const target = `${sessionId}.settings.json`;
  const walk = (dir: string, depth: number): string | undefined => {
    const direct = join(dir, target);
    if (existsSync(direct)) return direct;
    if (depth === 0) return undefined;
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      return undefined;
    }
    for (const name of names) {
      const sub = join(dir, name);
      try {
        if (!statSync(sub).isDirectory()) continue;
      } catch {
        continue;
      }
      const found = walk(sub, depth - 1);
      if (found) return found;
    }
    return undefined;
  };
  return walk(droidSessionsDir(home), 3);
}
