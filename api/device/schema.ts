// Enrollment by device code (RFC 8628's shape, as `gh auth login`): the paths, limits and every request
// and answer. The machine starts at DEVICE_START_PATH and polls DEVICE_TOKEN_PATH; the person opens
// DEVICE_PAGE (the dashboard's approval page) and decides through DEVICE_REQUEST_PATH.
import { z } from 'zod';
import { UNSHOWN_CHARACTER } from '../../common/unshown.ts';
import { IsoTime } from '../http/dates.ts';
import { PublicKey } from '../keys/schema.ts';

export const DEVICE_START_PATH = '/api/v0/auth/device';
export const DEVICE_TOKEN_PATH = '/api/v0/auth/device/token';
export const DEVICE_REQUEST_PATH = '/api/v0/auth/device/requests/:userCode';
/** The dashboard's approval page (web/src/pages/Device.tsx); `?code=` prefills the code. */
export const DEVICE_PAGE = '/device';

/** A code lives this long (RFC 8628 leaves it to the server; 10 minutes as the issue asks). */
export const CODE_TTL_MS = 10 * 60_000;
/** Seconds the machine waits between polls, and what each slow_down adds. */
export const POLL_INTERVAL_S = 5;
export const SLOW_DOWN_STEP_S = 5;
/** Device codes one address may ask for per window. */
export const STARTS_PER_ADDRESS = 10;
/** Unknown user codes one person may try per window (guessing one needs ~1e10 tries). */
export const WRONG_CODES_PER_PERSON = 10;
export const LIMIT_WINDOW_MS = 10 * 60_000;

export const StartBody = z.strictObject({
  name: z
    .string()
    .trim()
    .min(1)
    .max(200)
    // An unauthenticated machine's name is shown to the person asked to approve it (common/unshown.ts).
    .refine((name) => !UNSHOWN_CHARACTER.test(name), 'printable characters only: no control, direction or zero-width characters')
    .optional()
    .describe('What the machine calls itself, shown on the approval page'),
});

export const DeviceStart = z.strictObject({
  deviceCode: z.string().describe('The machine keeps it and polls with it; never shown to the person'),
  userCode: z.string().describe('The short code the person approves, as shown (BCDF-GHJK)'),
  verificationUri: z.string().describe('The dashboard page where the person approves it'),
  verificationUriComplete: z.string().describe('The same page with the code filled in'),
  expiresIn: z.number().int().describe('Seconds until both codes expire'),
  interval: z.number().int().describe('Seconds to wait between polls'),
});

export const TokenBody = z.strictObject({ deviceCode: z.string().min(1).max(200) });

export const TokenAnswer = z.discriminatedUnion('status', [
  z.strictObject({ status: z.literal('authorization_pending'), interval: z.number().int() }),
  z.strictObject({ status: z.literal('slow_down'), interval: z.number().int().describe('The new interval, 5 s longer') }),
  z.strictObject({ status: z.literal('access_denied') }),
  z.strictObject({ status: z.literal('expired_token') }),
  z.strictObject({
    status: z.literal('approved'),
    apiKey: z.string().describe('The collector key, shown only in this answer'),
    key: PublicKey,
  }),
]);
export type TokenAnswer = z.infer<typeof TokenAnswer>;

export const RequestParams = z.strictObject({ userCode: z.string().min(1).max(32).describe('The user code, with or without its dash') });

export const DeviceRequest = z.strictObject({
  userCode: z.string(),
  machineName: z.string().nullable(),
  requestedFrom: z.string().nullable().describe('The address the machine asked from'),
  createdAt: IsoTime,
  expiresAt: IsoTime,
  state: z.enum(['pending', 'approved', 'denied']),
  /** Who decided, when someone of this organization did. */
  decidedBy: z.string().nullable(),
});
export type DeviceRequest = z.infer<typeof DeviceRequest>;

export const DecisionBody = z.strictObject({ decision: z.enum(['approve', 'deny']) });
