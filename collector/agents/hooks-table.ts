// Where each agent keeps its hooks, as its folder describes it (collector/agents/<agent>/hooks.ts): the
// light part of the agent table, which the installer and the CLI's start read without loading the
// agents' parsers and usage readers. Each adapter (collector/agents/index.ts) carries the same object; a
// test walks both.
import type { Agent } from '../../common/agents.ts';
import type { AgentHooks } from '../install/locations.ts';
import { CLAUDE_HOOKS } from './claude/hooks.ts';
import { CODEX_HOOKS } from './codex/hooks.ts';
import { COPILOT_HOOKS } from './copilot/hooks.ts';
import { CURSOR_HOOKS } from './cursor/hooks.ts';
import { DROID_HOOKS } from './droid/hooks.ts';
import { GEMINI_HOOKS } from './gemini/hooks.ts';
import { QWEN_HOOKS } from './qwen/hooks.ts';

export const AGENT_HOOKS: Record<Agent, AgentHooks> = {
  claude: CLAUDE_HOOKS,
  codex: CODEX_HOOKS,
  droid: DROID_HOOKS,
  gemini: GEMINI_HOOKS,
  qwen: QWEN_HOOKS,
  cursor: CURSOR_HOOKS,
  copilot: COPILOT_HOOKS,
};
