import { noOtherHost } from '../hosts.ts';
import type { AgentAdapter } from '../types.ts';
import { cursorAutonomy, cursorEvent, cursorHeadless, cursorModel, normalizeCursor } from './events.ts';
import { CURSOR_HOOKS } from './hooks.ts';
import { CURSOR_TOOLS } from './tools.ts';
import { CURSOR_USAGE, type CursorState } from './usage.ts';

/** Cursor (its editor's agent and cursor-agent): its own payload dialect, edits from afterFileEdit, no usage. */
export const cursorAdapter: AgentAdapter<CursorState> = {
  name: 'cursor',
  canonicalEvent: cursorEvent,
  tools: CURSOR_TOOLS,
  otherHost: noOtherHost,
  normalize: normalizeCursor,
  eventModel: cursorModel,
  autonomy: cursorAutonomy,
  headless: cursorHeadless,
  usage: CURSOR_USAGE,
  hooks: CURSOR_HOOKS,
};

export default cursorAdapter;
