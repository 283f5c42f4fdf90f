// Where Claude Code keeps its files. The hook payload names the transcript (transcript_path); subagent
// transcripts arrive as agent_transcript_path on SubagentStop.
import { join } from 'node:path';

export const claudeSettingsFile = (home: string) => join(home, '.claude', 'settings.json');
export const claudeProjectsDir = (home: string) => join(home, '.claude', 'projects');
