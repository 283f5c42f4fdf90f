// The OTLP receiver's status as it leaves it on disk (written by collector/otel/receiver.ts), for `collect
// status` and `doctor`, which read it without loading the receiver and its decoders.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';

/** Where the receiver listens unless told otherwise, and where `hooks install` points the agents. */
export const DEFAULT_OTLP_LISTEN = '127.0.0.1:4318';

export const ReceiverStatus = z.object({
  listen: z.string(),
  startedAt: z.number(),
  requests: z.number(),
  refused: z.number(),
  /** Data points, log records and spans refused (answered as OTLP's partial success, kept in quarantine). */
  rejected: z.number().default(0),
  facts: z.number(),
  ignored: z.number(),
  unmapped: z.number(),
  /** Unmapped signals by name, the most frequent first (at most 20). */
  unmappedNames: z.array(z.tuple([z.string(), z.number()])),
});
export type ReceiverStatus = z.infer<typeof ReceiverStatus>;

export const receiverStatusPath = (agentmeterHome: string) => join(agentmeterHome, 'collector', 'otlp-status.json');

export function readReceiverStatus(agentmeterHome: string): ReceiverStatus | undefined {
  try {
    const parsed = ReceiverStatus.safeParse(JSON.parse(readFileSync(receiverStatusPath(agentmeterHome), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** How the receiver's 403 to another user's connection begins (doctor tells it from other answers by it). */
export const OTHER_USERS_REFUSAL = "the OTLP receiver answers only its own user's agents";

/** How its 403 begins to a connection whose user the system does not say (doctor tells that one apart too). */
export const UNTOLD_OWNER_REFUSAL = 'the OTLP receiver cannot tell which user opened this connection';
