import type { AgentAdapter } from '../types.ts';
import { qwenAutonomy, qwenCanonicalEvent, qwenHeadless } from './events.ts';
import { QWEN_TOOLS } from './tools.ts';
import { readQwenUsage } from './usage.ts';

export const qwenAdapter: AgentAdapter = {
  name: 'qwen',
  canonicalEvent: qwenCanonicalEvent,
  tools: QWEN_TOOLS,
  autonomy: qwenAutonomy,
  headless: qwenHeadless,
  readUsage: readQwenUsage,
};
