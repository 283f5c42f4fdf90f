import type { AgentAdapter } from '../types.ts';
import { claudeAutonomy, claudeHeadless } from './events.ts';
import { readClaudeUsage } from './usage.ts';

export const claudeAdapter: AgentAdapter = {
  name: 'claude',
  autonomy: claudeAutonomy,
  headless: claudeHeadless,
  readUsage: (session, state) => readClaudeUsage(session, state),
};
