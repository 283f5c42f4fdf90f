import { claudeAdapter } from './claude/index.ts';
import { codexAdapter } from './codex/index.ts';
import { droidAdapter } from './droid/index.ts';
import { geminiAdapter } from './gemini/index.ts';
import { qwenAdapter } from './qwen/index.ts';
import type { AgentAdapter } from './types.ts';

/** Every agent the collector reads; adding one here (and to AgentName) is all the wiring it needs. */
export const ADAPTERS: Record<AgentAdapter['name'], AgentAdapter> = {
  claude: claudeAdapter,
  droid: droidAdapter,
  gemini: geminiAdapter,
  qwen: qwenAdapter,
  codex: codexAdapter,
};

export function adapterFor(agent: string | undefined): AgentAdapter | undefined {
  return agent !== undefined && Object.hasOwn(ADAPTERS, agent) ? ADAPTERS[agent as keyof typeof ADAPTERS] : undefined;
}
