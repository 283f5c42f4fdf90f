// What the computer agent (`agentmeter computer run`, computer/) and the server (api/sessions/agent-routes.ts)
// say to each other. The agent only ever connects out: it long-polls for work, reports that a run
// started, keeps its lease alive while the agent process runs, and reports the result.
import { z } from 'zod';

export const COMPUTER_TOKEN_PREFIX = 'amc_';

/** From a claim to the agent's start report: a claim never started goes back to the queue after this. */
export const CLAIM_LEASE_MS = 30_000;
/** A running message's lease. The agent renews it every HEARTBEAT_MS, a quarter of it, so a late or lost
 * heartbeat or two does not fail a healthy run (durations, not server times, so clock skew is harmless). */
export const RUN_LEASE_MS = 60_000;
export const HEARTBEAT_MS = RUN_LEASE_MS / 4;
export const computerPath = (computerId: string, rest = '') => `/api/v0/computers/${encodeURIComponent(computerId)}${rest}`;

/** `agentmeter computer register` → POST /api/v0/computers */
export const RegisterBody = z.strictObject({
  name: z.string().trim().min(1).max(128),
  hostname: z.string().min(1).max(255).optional(),
  remoteUser: z.string().min(1).max(128).optional(),
  hostId: z.uuid().optional(),
});
export type RegisterBody = z.infer<typeof RegisterBody>;

/** One start-up check of the computer agent (its command can be found, its default directory exists…). */
export const Check = z.strictObject({ name: z.string().min(1).max(128), ok: z.boolean(), error: z.string().max(2000).optional() });
export type Check = z.infer<typeof Check>;

/** POST …/agent/hello: the agent (re)starts. Runs it had started are failed: it no longer runs them. */
export const HelloBody = z.strictObject({ checks: z.array(Check).min(1).max(20), agentCommand: z.string().max(1024) });
export type HelloBody = z.infer<typeof HelloBody>;

export const Attachment = z.strictObject({
  kind: z.enum(['image', 'file']),
  name: z.string().max(255).optional(),
  path: z.string().max(4096).optional(),
  /** base64 */
  data: z.string(),
  parsedData: z.string().optional(),
});
export type Attachment = z.infer<typeof Attachment>;

/** A user message handed to the computer: run the agent with `text` in `cwd`. */
export const WorkItem = z.strictObject({
  sessionId: z.string(),
  messageId: z.string(),
  cwd: z.string().nullable(),
  text: z.string(),
  model: z.string().nullable(),
  attachments: z.array(Attachment),
  /** Until when the claim holds without a heartbeat (Unix ms). */
  leaseUntil: z.number(),
});
export type WorkItem = z.infer<typeof WorkItem>;

export const PollQuery = z.strictObject({
  /** How long the server may hold the request open waiting for work. */
  waitMs: z
    .string()
    .regex(/^\d+$/, 'waitMs must be a whole number of milliseconds')
    .transform(Number)
    .refine((n) => n <= 60_000, 'waitMs is at most 60000')
    .optional(),
});
export const PollAnswer = z.strictObject({ work: WorkItem.nullable() });
export type PollAnswer = z.infer<typeof PollAnswer>;

/** POST …/agent/messages/{messageId}/start and …/heartbeat answer with the new lease. */
export const LeaseAnswer = z.strictObject({ leaseUntil: z.number() });

/** POST …/agent/messages/{messageId}/result */
export const ResultBody = z.strictObject({
  // exit_code is an INTEGER column: a larger number is a 400, not an overflow.
  exitCode: z.number().int().min(-2_147_483_648).max(2_147_483_647).nullable(),
  /** The agent's standard output: the assistant's answer. */
  output: z.string().max(1024 * 1024),
  /** Why the run failed (spawn error, non-zero exit with the tail of stderr, signal). */
  error: z.string().max(4000).optional(),
});
export type ResultBody = z.infer<typeof ResultBody>;
