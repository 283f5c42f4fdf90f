// Copilot keeps no token usage on the machine (its session-state files hold no counts we can rely on):
// its tokens come from its OpenTelemetry export, which `hooks install` turns on where it can (docs/metrics.md
// §11, its names in otel.ts). The usage reader reads nothing, and its piece of the state stays empty.
import { z } from 'zod';
import type { UsageReader } from '../types.ts';

export const CopilotState = z.object({});
export type CopilotState = z.infer<typeof CopilotState>;

export const COPILOT_USAGE: UsageReader<CopilotState> = {
  state: CopilotState,
  empty: () => ({}),
  read: () => ({ records: [], problems: [] }),
};
