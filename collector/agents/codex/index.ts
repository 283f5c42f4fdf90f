import { sameEventName } from '../claude-style.ts';
import { noOtherHost } from '../hosts.ts';
import type { AgentAdapter } from '../types.ts';
import { codexAutonomy, codexHeadless } from './events.ts';
import { CODEX_HOOKS } from './hooks.ts';
import { CODEX_TOOLS } from './tools.ts';
import { CODEX_USAGE, type CodexState } from './usage.ts';

/** Codex CLI: Claude Code's event names and permission modes, its own tools, usage from the rollout. */
export const codexAdapter: AgentAdapter<CodexState> = {
  name: 'codex',
  canonicalEvent: sameEventName,
  tools: CODEX_TOOLS,
  otherHost: noOtherHost,
  autonomy: codexAutonomy,
  headless: codexHeadless,
  usage: CODEX_USAGE,
  hooks: CODEX_HOOKS,
};

export default codexAdapter;
