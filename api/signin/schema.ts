// The dashboard's sign-in exchange: an API key or JWT in, a session cookie out.
import { z } from 'zod';
import { KEY_SCOPES } from '../../common/key-scopes.ts';

export const SESSION_PATH = '/api/v0/auth/session';
export const AUTH_ME_PATH = '/api/v0/auth/me';

export const SignInBody = z.strictObject({
  credential: z
    .string()
    .trim()
    .min(1, 'credential is required: an API key (am_…) or a JWT')
    .max(4096, 'credential is too long for an API key or a JWT'),
});

export const Me = z.strictObject({
  userId: z.string(),
  email: z.string(),
  role: z.enum(['owner', 'manager', 'member', 'guest']),
  orgId: z.string(),
  orgName: z.string(),
  /** When the session ends (epoch ms); absent for a request signed with a bearer credential. */
  sessionExpiresAt: z.number().optional(),
  /** The scope of the API key the request was signed with (install.sh asks); absent for a JWT or a session. */
  scope: z.enum(KEY_SCOPES).optional(),
});
export type Me = z.infer<typeof Me>;

/** How long a dashboard session lasts. */
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** GET /api/v0/auth/session: whether this browser is signed in, and as whom. */
export const SignInState = z.union([z.strictObject({ signedIn: z.literal(true), me: Me }), z.strictObject({ signedIn: z.literal(false) })]);
export type SignInState = z.infer<typeof SignInState>;
