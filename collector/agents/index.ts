import type { AgentName } from '../../common/wire.ts';
import { claudeAdapter } from './claude/index.ts';
import { droidAdapter } from './droid/index.ts';
import type { AgentAdapter } from './types.ts';

export const ADAPTERS: Record<Exclude<AgentName, 'unknown'>, AgentAdapter> = { claude: claudeAdapter, droid: droidAdapter };

export function adapterFor(agent: string | undefined): AgentAdapter | undefined {
  return agent === 'claude' || agent === 'droid' ? ADAPTERS[agent] : undefined;
}
