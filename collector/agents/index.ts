import type { AgentName } from '../../common/wire.ts';
import { claudeAdapter } from './claude/index.ts';
import { codexAdapter } from './codex/index.ts';
import { droidAdapter } from './droid/index.ts';
import type { AgentAdapter } from './types.ts';

/** Every agent the collector reads; adding one here (and to AgentName) is all the wiring it needs. */
export const ADAPTERS: Record<Exclude<AgentName, 'unknown'>, AgentAdapter> = {
  claude: claudeAdapter,
  droid: droidAdapter,
  codex: codexAdapter,
};

export function adapterFor(agent: string | undefined): AgentAdapter | undefined {
  return agent !== undefined && Object.hasOwn(ADAPTERS, agent) ? ADAPTERS[agent as keyof typeof ADAPTERS] : undefined;
}
