import { noOtherHost } from '../hosts.ts';
import type { AgentAdapter } from '../types.ts';
import { geminiAutonomy, geminiEvent, geminiHeadless } from './events.ts';
import { GEMINI_HOOKS } from './hooks.ts';
import { GEMINI_TOOLS } from './tools.ts';
import { GEMINI_USAGE, type GeminiState } from './usage.ts';

export const geminiAdapter: AgentAdapter<GeminiState> = {
  name: 'gemini',
  canonicalEvent: geminiEvent,
  tools: GEMINI_TOOLS,
  otherHost: noOtherHost,
  autonomy: geminiAutonomy,
  headless: geminiHeadless,
  usage: GEMINI_USAGE,
  hooks: GEMINI_HOOKS,
};

export default geminiAdapter;
