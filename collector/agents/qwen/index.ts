import { noOtherHost } from '../hosts.ts';
import type { AgentAdapter } from '../types.ts';
import { qwenAutonomy, qwenCanonicalEvent, qwenHeadless } from './events.ts';
import { QWEN_HOOKS } from './hooks.ts';
import { QWEN_TOOLS } from './tools.ts';
import { QWEN_USAGE, type QwenState } from './usage.ts';

export const qwenAdapter: AgentAdapter<QwenState> = {
  name: 'qwen',
  canonicalEvent: qwenCanonicalEvent,
  tools: QWEN_TOOLS,
  otherHost: noOtherHost,
  autonomy: qwenAutonomy,
  headless: qwenHeadless,
  usage: QWEN_USAGE,
  hooks: QWEN_HOOKS,
};

export default qwenAdapter;
