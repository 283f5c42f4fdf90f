// Where Claude Code keeps its files. The hook payload names the transcript (transcript_path); each subagent
// writes its own beside it, <session id>/subagents/agent-<agent id>.jsonl, which SubagentStop names as
// agent_transcript_path (but an interrupted subagent gets no SubagentStop).
import { join } from 'node:path';
import { transcriptsBeside } from '../../transcript.ts';

export const claudeSettingsFile = (home: string) => join(home, '.claude', 'settings.json');
export const claudeProjectsDir = (home: string) => join(home, '.claude', 'projects');

/** The subagent transcripts of a session: <session id>/subagents/agent-*.jsonl beside its transcript (regular files only). */
export const claudeSubagentTranscripts = (transcriptPath: string, sessionId: string): string[] =>
  transcriptsBeside(transcriptPath, sessionId, ['subagents'], 'agent-');
