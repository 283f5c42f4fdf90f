// The sessions API's paths and shapes (service-api.md "Session", "Message (create)"), request and
// response, and the computer agent's routes' own (their bodies are the wire protocol the agent shares:
// common/computer-protocol.ts).
import { z } from 'zod';
import { freeForm } from '../../common/free-form.ts';
import { COMPUTER_PATH } from '../computers/schema.ts';
import { limitParam } from '../http/query.ts';

export const SESSIONS_PATH = '/api/v0/sessions';
export const SESSION_PATH = `${SESSIONS_PATH}/:sessionId`;
export const MESSAGES_PATH = `${SESSION_PATH}/messages`;
/** The computer agent's routes: a computer's token is accepted on these only. */
export const AGENT_PATH = `${COMPUTER_PATH}/agent`;
export const AGENT_HELLO_PATH = `${AGENT_PATH}/hello`;
export const AGENT_WORK_PATH = `${AGENT_PATH}/work`;
export const agentRunPath = (step: 'start' | 'heartbeat' | 'result') => `${AGENT_PATH}/messages/:messageId/${step}`;

export const SessionParams = z.strictObject({ sessionId: z.string().min(1).max(64) });
export const GetQuery = z.strictObject({ computerId: z.string().min(1).max(64).optional() });
export const ListQuery = z.strictObject({
  limit: limitParam.optional(),
  cursor: z
    .string()
    .regex(/^\d{1,16}\.[A-Za-z0-9_]{1,64}$/, 'cursor must be a pagination.nextCursor value')
    .optional(),
  computerId: z.string().min(1).max(64).optional(),
});
export const MessagesQuery = z.strictObject({
  limit: limitParam.optional(),
  cursor: z
    .string()
    .regex(/^\d{1,9}$/, 'cursor must be a pagination.nextCursor value')
    .optional(),
});
/** A computer agent's path: the computer whose token it must carry. */
export const AgentParams = z.strictObject({ computerId: z.string().min(1).max(64) });
/** A run's path: the computer and the message it runs. */
export const RunParams = z.strictObject({ computerId: z.string().min(1).max(64), messageId: z.string().min(1).max(64) });

const text = (max: number) => z.string().max(max);
const free = freeForm();

/** The fields a client may set. The token-usage fields are computed by the server: sending one is a 400. */
const settableSettings = {
  model: text(256).optional(),
  specModeModel: text(256).optional(),
  providerLockTimestamp: text(64).optional(),
  assistantActiveTimeMs: z.number().int().nonnegative().optional(),
  archivedAt: text(64).optional(),
  tags: z
    .array(z.strictObject({ name: z.string().min(1).max(128), metadata: free.optional() }))
    .max(100)
    .optional(),
  enabledToolIds: z.array(text(256)).max(1000).optional(),
  disabledToolIds: z.array(text(256)).max(1000).optional(),
};
export const RESPONSE_ONLY_SETTINGS = ['tokenUsage', 'inclusiveTokenUsage', 'childInclusiveTokenUsageBySessionId'] as const;

const responseOnly = (value: Record<string, unknown>, ctx: z.RefinementCtx) => {
  for (const key of RESPONSE_ONLY_SETTINGS) {
    if (key in value)
      ctx.addIssue({ code: 'custom', path: [key], message: `${key} is computed by the server from the session's usage and cannot be set` });
  }
};

/** sessionSettings on POST /sessions. */
export const SessionSettingsInput = z.looseObject({}).superRefine(responseOnly).pipe(z.strictObject(settableSettings));
export type SessionSettingsInput = z.infer<typeof SessionSettingsInput>;

/** sessionSettings on PATCH: merged into the stored settings; null removes a field (archivedAt: null unarchives). */
export const SessionSettingsPatch = z
  .looseObject({})
  .superRefine(responseOnly)
  .pipe(
    z.strictObject(
      Object.fromEntries(Object.entries(settableSettings).map(([k, v]) => [k, v.nullable()])) as {
        [K in keyof typeof settableSettings]: z.ZodNullable<(typeof settableSettings)[K]>;
      },
    ),
  );
export type SessionSettingsPatch = z.infer<typeof SessionSettingsPatch>;

export const CreateSessionBody = z.strictObject({
  computerId: z.string().min(1).max(64),
  cwd: z.string().min(1, 'cwd takes 1 to 4096 characters').max(4096, 'cwd takes 1 to 4096 characters').optional(),
  sessionSettings: SessionSettingsInput.optional(),
});

export const PatchSessionBody = z.strictObject({ sessionSettings: SessionSettingsPatch.optional() });

/** Attachments: at most 10, each at most 4 MiB of base64; the route takes bodies up to 16 MiB. */
const base64 = z
  .string()
  .max(4 * 1024 * 1024, 'an attachment takes at most 4 MiB of base64')
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'data must be base64');
export const CreateMessageBody = z.strictObject({
  text: z.string().min(1, 'text is required').max(100_000),
  images: z
    .array(z.strictObject({ data: base64 }))
    .max(10)
    .optional(),
  files: z
    .array(
      z.strictObject({
        data: base64,
        parsedData: z
          .string()
          .max(1024 * 1024)
          .optional(),
        name: text(255).optional(),
        path: text(4096).optional(),
      }),
    )
    .max(10)
    .optional(),
  computerId: z.string().min(1).max(64).optional(),
});
export type CreateMessageBody = z.infer<typeof CreateMessageBody>;

export const SessionStatus = z.enum(['idle', 'pending', 'running']);
export type SessionStatus = z.infer<typeof SessionStatus>;

export const TokenUsage = z.strictObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheCreationTokens: z.number(),
  cacheReadTokens: z.number(),
  thinkingTokens: z.number(),
  serviceCredits: z.number(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

export const Session = z.strictObject({
  sessionId: z.string(),
  status: SessionStatus,
  messageCount: z.number().int(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
  title: z.string().optional(),
  completedAt: z.number().int().optional(),
  computerId: z.string().optional(),
  cwd: z.string().optional(),
  sessionSettings: z.looseObject({
    tokenUsage: TokenUsage,
    inclusiveTokenUsage: TokenUsage,
    childInclusiveTokenUsageBySessionId: z.record(z.string(), TokenUsage),
  }),
});
export type Session = z.infer<typeof Session>;

export const MessageCreated = z.strictObject({ messageId: z.string(), status: SessionStatus });

export const SessionMessage = z.strictObject({
  messageId: z.string(),
  role: z.enum(['user', 'assistant']),
  text: z.string(),
  /** user messages: queued, claimed, running, completed, failed; assistant messages: completed. */
  status: z.enum(['queued', 'claimed', 'running', 'completed', 'failed']),
  createdAt: z.number().int(),
  computerId: z.string().optional(),
  startedAt: z.number().int().optional(),
  completedAt: z.number().int().optional(),
  replyTo: z.string().optional(),
  exitCode: z.number().int().optional(),
  error: z.string().optional(),
  attachments: z
    .array(z.strictObject({ kind: z.enum(['image', 'file']), name: z.string().optional(), path: z.string().optional(), bytes: z.number() }))
    .optional(),
});
export type SessionMessage = z.infer<typeof SessionMessage>;

const Pagination = z.strictObject({ hasMore: z.boolean(), nextCursor: z.string().optional() });
/** How many sessions of the list's filter are in each status, over every page (an agentmeter extension). */
export const SessionCounts = z.strictObject({ running: z.number().int(), pending: z.number().int(), idle: z.number().int() });
export const SessionPage = z.strictObject({
  sessions: z.array(Session),
  pagination: Pagination,
  counts: SessionCounts.optional().describe(
    'the sessions the filter selects in each status, over every page (an agentmeter extension; the server always sends it)',
  ),
});
export const MessagePage = z.strictObject({ messages: z.array(SessionMessage), pagination: Pagination });
/** The answer to a run's result: the session's status now (pending when another message waits). */
export const ResultAnswer = z.strictObject({ status: z.enum(['idle', 'pending', 'running']) });
