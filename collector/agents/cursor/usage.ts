// Cursor's token usage: none on the machine. Cursor keeps its usage on its servers (the Admin API's usage
// events, for Enterprise teams); what it keeps locally (agent transcripts, its editor database) has no
// token counts. So this reader reads nothing and owns an empty piece of the collector state, and Cursor's
// tokens are "not reported" in the API and the dashboard, never zero (docs/agents/cursor.md, docs/metrics.md
// §1). Its events, edits and lines come from its hooks.
import { z } from 'zod';
import type { UsageReader } from '../types.ts';

export const CursorState = z.object({});
export type CursorState = z.infer<typeof CursorState>;

export const CURSOR_USAGE: UsageReader<CursorState> = {
  state: CursorState,
  empty: () => ({}),
  read: () => ({ records: [], problems: [] }),
};
