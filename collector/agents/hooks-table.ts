// Where each agent keeps its hooks, from its folder (collector/agents/<agent>/hooks.ts, its default
// export): the light part of the agent, which the installer and the CLI's start read without loading the
// agents' parsers and usage readers. Each adapter carries the same object; a test walks both.
import { type Agent, eachAgent, isObject } from '../../common/agents.ts';
import type { AgentHooks } from '../install/locations.ts';

const isHooks = (part: unknown): part is AgentHooks =>
  isObject(part) && Array.isArray(part['events']) && typeof part['homeDir'] === 'string' && typeof part['userSettings'] === 'function';

export const AGENT_HOOKS: Readonly<Record<Agent, AgentHooks>> = await eachAgent(
  'hooks.ts',
  (agent) => import(`./${agent}/hooks.ts`),
  isHooks,
);
