import type { AgentAdapter } from '../types.ts';
import { droidAutonomy, droidHeadless } from './events.ts';
import { readDroidUsage } from './usage.ts';

export const droidAdapter: AgentAdapter = {
  name: 'droid',
  autonomy: droidAutonomy,
  headless: droidHeadless,
  readUsage: readDroidUsage,
};
