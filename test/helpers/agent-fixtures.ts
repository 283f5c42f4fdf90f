// Where an agent's fixtures live: in its own folder (collector/agents/<agent>/fixtures, each set with the
// SOURCE.md that names where it came from), and the ccusage oracle's under oracle/ there.
import { join } from 'node:path';
import type { Agent } from '../../common/agents.ts';
import { ROOT } from './processes.ts';

export const agentFixtures = (agent: Agent, ...path: string[]): string => join(ROOT, 'collector', 'agents', agent, 'fixtures', ...path);

export const oracleFixtures = (agent: Agent, ...path: string[]): string => agentFixtures(agent, 'oracle', ...path);
