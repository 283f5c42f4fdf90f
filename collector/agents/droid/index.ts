import { CLAUDE_STYLE_TOOLS, sameEventName } from '../claude-style.ts';
import { noOtherHost } from '../hosts.ts';
import type { AgentAdapter } from '../types.ts';
import { droidAutonomy, droidHeadless } from './events.ts';
import { DROID_HOOKS } from './hooks.ts';
import { DROID_USAGE, type DroidState } from './usage.ts';

export const droidAdapter: AgentAdapter<DroidState> = {
  name: 'droid',
  canonicalEvent: sameEventName,
  tools: CLAUDE_STYLE_TOOLS,
  otherHost: noOtherHost,
  autonomy: droidAutonomy,
  headless: droidHeadless,
  usage: DROID_USAGE,
  hooks: DROID_HOOKS,
};

export default droidAdapter;
