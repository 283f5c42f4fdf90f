import type { AgentAdapter } from '../types.ts';
import { geminiAutonomy, geminiEvent, geminiHeadless } from './events.ts';
import { GEMINI_TOOLS } from './tools.ts';
import { readGeminiUsage } from './usage.ts';

export const geminiAdapter: AgentAdapter = {
  name: 'gemini',
  canonicalEvent: geminiEvent,
  tools: GEMINI_TOOLS,
  autonomy: geminiAutonomy,
  headless: geminiHeadless,
  readUsage: (session, state) => readGeminiUsage(session, state),
};
