// The answers of the users-and-keys routes (api/routes/accounts.ts): a key's secret appears once, in
// `apiKey` of the answer that created it; a key's hash never leaves the server.
import { z } from 'zod';
import { Role } from '../auth/principal.ts';
import { KEY_KINDS, KEY_SCOPES } from '../accounts/store.ts';

export const PublicUser = z.strictObject({ id: z.string(), email: z.string(), role: Role, createdAt: z.string() });
export const PublicKey = z.strictObject({
  id: z.string(),
  userId: z.string(),
  name: z.string().nullable(),
  prefix: z.string().describe('the first characters of the key, to recognize it'),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  createdBy: z.string().nullable().describe('the user id of who minted the key; null: the operator, on the database file'),
  kind: z.enum(KEY_KINDS).describe('personal, invitation (exchanged once for a personal key) or delegated (minted by someone else)'),
  scope: z
    .enum(KEY_SCOPES)
    .describe('personal: what the role allows; collector: ingest, its own limits, usage and identity only (docs/keys.md)'),
  machineId: z.string().nullable().describe("a collector key's machine (the first it delivered events from); null until then"),
});
const secret = z.string().describe('the API key itself, shown only in this answer');
export const CreatedUser = z.strictObject({ user: PublicUser, apiKey: secret, key: PublicKey });
export const CreatedKey = z.strictObject({ apiKey: secret, key: PublicKey });
export const KeyList = z.strictObject({ keys: z.array(PublicKey) });
export const RevokedKey = z.strictObject({ key: PublicKey, revoked: z.boolean().describe('false when it was revoked before') });
export const WhoAmI = z.strictObject({ userId: z.string(), orgId: z.string(), email: z.string(), role: Role });
