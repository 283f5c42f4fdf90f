// Where Claude Code keeps its files. The hook payload names the transcript (transcript_path); each subagent
// writes its own beside it, <session id>/subagents/agent-<agent id>.jsonl, which SubagentStop names as
// agent_transcript_path (but an interrupted subagent gets no SubagentStop).
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const claudeSettingsFile = (home: string) => join(home, '.claude', 'settings.json');
export const claudeProjectsDir = (home: string) => join(home, '.claude', 'projects');

/** The subagent transcripts of a session: <session id>/subagents/agent-*.jsonl beside its transcript (regular files only). */
export function claudeSubagentTranscripts(transcriptPath: string, sessionId: string): string[] {
  // A session id is a UUID: anything that could leave the folder is not one.
  if (!/^[A-Za-z0-9_.-]+$/.test(sessionId) || sessionId === '.' || sessionId === '..') return [];
  const dir = join(dirname(transcriptPath), sessionId, 'subagents');
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.startsWith('agent-') && entry.name.endsWith('.jsonl'))
      .map((entry) => join(dir, entry.name))
      .sort();
  } catch {
    return [];
  }
}
