// Where Qwen Code keeps its files: chats as JSONL at <runtime dir>/projects/<sanitized cwd>/chats/<session>.jsonl,
// the runtime dir being $QWEN_RUNTIME_DIR or ~/.qwen (docs/users/features/headless.md, "Resume Previous
// Sessions"; ccusage adapter/qwen/paths.rs). The hook payload's transcript_path names the session's chat.
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const qwenSettingsFile = (home: string) => join(home, '.qwen', 'settings.json');

/** The folder of Qwen's projects. QWEN_RUNTIME_DIR is read from the collector's environment when it is set there. */
export function qwenProjectsDir(home: string, env: NodeJS.ProcessEnv = process.env): string {
  const runtime = env['QWEN_RUNTIME_DIR']?.trim();
  return join(runtime ? runtime : join(home, '.qwen'), 'projects');
}

/** Finds projects/<any>/chats/<sessionId>.jsonl, for an event whose payload named no readable chat. */
export function findQwenChatFile(home: string, sessionId: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  // A session id is a UUID; anything with a path separator is not looked up.
  if (!/^[A-Za-z0-9_.-]+$/.test(sessionId)) return undefined;
  const projects = qwenProjectsDir(home, env);
  let names: string[];
  try {
    names = readdirSync(projects);
  } catch {
    return undefined;
  }
  for (const name of names) {
    const candidate = join(projects, name, 'chats', `${sessionId}.jsonl`);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
