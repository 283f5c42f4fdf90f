import { sameEventName } from '../claude-style.ts';
import type { AgentAdapter } from '../types.ts';
import { codexAutonomy, codexHeadless } from './events.ts';
import { CODEX_TOOLS } from './tools.ts';
import { readCodexUsage } from './usage.ts';

/** Codex CLI: Claude Code's event names and permission modes, its own tools, usage from the rollout. */
export const codexAdapter: AgentAdapter = {
  name: 'codex',
  canonicalEvent: sameEventName,
  tools: CODEX_TOOLS,
  autonomy: codexAutonomy,
  headless: codexHeadless,
  readUsage: readCodexUsage,
};
