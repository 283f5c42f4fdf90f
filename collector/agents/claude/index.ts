import { CLAUDE_STYLE_TOOLS, sameEventName } from '../claude-style.ts';
import type { AgentAdapter } from '../types.ts';
import { claudeAutonomy, claudeHeadless } from './events.ts';
import { CLAUDE_HOOKS } from './hooks.ts';
import { claudeHookHost } from './hosts.ts';
import { CLAUDE_USAGE, type ClaudeState } from './usage.ts';

export const claudeAdapter: AgentAdapter<ClaudeState> = {
  name: 'claude',
  canonicalEvent: sameEventName,
  tools: CLAUDE_STYLE_TOOLS,
  otherHost: claudeHookHost,
  autonomy: claudeAutonomy,
  headless: claudeHeadless,
  usage: CLAUDE_USAGE,
  hooks: CLAUDE_HOOKS,
};

export default claudeAdapter;
