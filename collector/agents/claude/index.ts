import { CLAUDE_STYLE_TOOLS, sameEventName } from '../claude-style.ts';
import type { AgentAdapter } from '../types.ts';
import { claudeAutonomy, claudeHeadless } from './events.ts';
import { readClaudeUsage } from './usage.ts';

export const claudeAdapter: AgentAdapter = {
  name: 'claude',
  canonicalEvent: sameEventName,
  tools: CLAUDE_STYLE_TOOLS,
  autonomy: claudeAutonomy,
  headless: claudeHeadless,
  readUsage: (session, state) => readClaudeUsage(session, state),
};
