// The collector's adapter of each agent, by name: typed by common/agents.ts, so an agent listed there
// without an adapter here does not compile.
import type { Agent } from '../../common/agents.ts';
import { claudeAdapter } from './claude/index.ts';
import { codexAdapter } from './codex/index.ts';
import { copilotAdapter } from './copilot/index.ts';
import { cursorAdapter } from './cursor/index.ts';
import { droidAdapter } from './droid/index.ts';
import { geminiAdapter } from './gemini/index.ts';
import { qwenAdapter } from './qwen/index.ts';
import type { AgentAdapter } from './types.ts';

/** Every agent the collector reads (each adapter's `name` is its key), each with the type of its state. */
export const ADAPTERS = {
  claude: claudeAdapter,
  droid: droidAdapter,
  gemini: geminiAdapter,
  qwen: qwenAdapter,
  codex: codexAdapter,
  cursor: cursorAdapter,
  copilot: copilotAdapter,
} satisfies Record<Agent, AgentAdapter>;

export function adapterFor(agent: string | undefined): AgentAdapter | undefined {
  return agent !== undefined && Object.hasOwn(ADAPTERS, agent) ? (ADAPTERS[agent as Agent] as AgentAdapter) : undefined;
}
