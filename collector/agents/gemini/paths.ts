// Where Gemini CLI keeps its files. The hook payload names the session's chat file (transcript_path:
// ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl, or session-*.json before the JSONL format);
// a subagent's chat is chats/<parent session id>/<subagent session id>.jsonl (chatRecordingService.ts).
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const geminiSettingsFile = (home: string) => join(home, '.gemini', 'settings.json');

/** The chat files of the subagents a session started: chats/<sessionId>/*.jsonl beside its own chat. */
export function geminiSubagentChats(transcriptPath: string, sessionId: string): string[] {
  // Gemini sanitizes the id into a file name; a session id is a UUID, which that leaves as it is.
  if (!/^[A-Za-z0-9_.-]+$/.test(sessionId) || sessionId === '.' || sessionId === '..') return [];
  const dir = join(dirname(transcriptPath), sessionId);
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.jsonl'))
      .map((entry) => join(dir, entry.name))
      .sort();
  } catch {
    return [];
  }
}
