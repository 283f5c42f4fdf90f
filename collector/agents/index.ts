// The collector's adapter of each agent in common/agents.ts, read from the agent's folder
// (collector/agents/<agent>/index.ts, its default export).
import { type Agent, eachAgent, isObject } from '../../common/agents.ts';
import type { AgentAdapter } from './types.ts';

/** An adapter's shape, as far as a value can show it; its own folder declares it `AgentAdapter<its state>`. */
const isAdapter = (part: unknown, agent: Agent): part is AgentAdapter =>
  isObject(part) &&
  part['name'] === agent &&
  typeof part['canonicalEvent'] === 'function' &&
  isObject(part['tools']) &&
  isObject(part['usage']) &&
  isObject(part['hooks']);

/** Every agent the collector reads, by name. */
export const ADAPTERS: Readonly<Record<Agent, AgentAdapter>> = await eachAgent(
  'index.ts',
  (agent) => import(`./${agent}/index.ts`),
  isAdapter,
);

export function adapterFor(agent: string | undefined): AgentAdapter | undefined {
  return agent !== undefined && Object.hasOwn(ADAPTERS, agent) ? ADAPTERS[agent as Agent] : undefined;
}
