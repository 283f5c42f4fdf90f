// Where Gemini CLI keeps its files. The hook payload names the session's chat file (transcript_path:
// ~/.gemini/tmp/<project>/chats/session-<time>-<id8>.jsonl, or session-*.json before the JSONL format);
// a subagent's chat is chats/<parent session id>/<subagent session id>.jsonl (chatRecordingService.ts).
import { join } from 'node:path';
import { transcriptsBeside } from '../../transcript.ts';

export const geminiSettingsFile = (home: string) => join(home, '.gemini', 'settings.json');

/**
 * The chat files of the subagents a session started: chats/<sessionId>/*.jsonl beside its own chat (Gemini
 * sanitizes the id into a file name, which leaves a UUID as it is).
 */
export const geminiSubagentChats = (transcriptPath: string, sessionId: string): string[] => transcriptsBeside(transcriptPath, sessionId);
