// API keys: their kinds and scopes, the request schemas and answers of the key routes (routes.ts), and
// their paths. A key's secret appears once, in `apiKey` of the answer that created it; a key's hash never
// leaves the server.
import { z } from 'zod';
import { KEY_SCOPES } from '../../common/key-scopes.ts';
import { IsoTime } from '../http/dates.ts';

/**
 * What a credential may do on its user's behalf. Only a personal credential drives the user's computers
 * (registers one, creates sessions on one, sends it messages): whoever mints a key for someone else holds
 * it too, and must not be able to run commands on that person's machine with it.
 *   personal    minted by the operator on the database file (created_by NULL), by the user with a personal
 *               credential (their key, or a JWT: only the operator's sign-in can sign one), or in exchange
 *               for their invitation
 *   invitation  the key handed over when someone created the user through the server; its user exchanges
 *               it once for a personal key (POST /admin/users/{own id}/keys with it), which revokes it
 *   delegated   minted through the server by another person, or by the user with a delegated key
 */
export const KEY_KINDS = ['personal', 'invitation', 'delegated'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

/**
 * What a key may do (migration 016). A collector key is what sits on a developer machine: it ingests,
 * reads its own user's credit-limit state and usage, says whose it is and registers its machine (the
 * routes declared with `access.collectorKey`), and gets 403 everywhere else. A personal key does what
 * its user's role allows. Minting a personal key needs a personal key; a JWT or a dashboard session
 * mints collector keys for its own user only; a key for someone else needs a personal API key (docs/keys.md).
 */
export { KEY_SCOPES, type KeyScope } from '../../common/key-scopes.ts';

/** A user's keys; the user is a user id, an e-mail address or `me` (api/users/schema.ts, UserParams). */
export const USER_KEYS_PATH = '/api/v0/admin/users/:userId/keys';
export const KEY_PATH = '/api/v0/admin/keys/:keyId';

export const CreateKeyBody = z
  .strictObject({
    name: z.string().max(200).optional(),
    scope: z
      .enum(KEY_SCOPES)
      .optional()
      .describe('personal (default): what the role allows, minted only with a personal API key; collector: what a developer machine needs'),
  })
  .default({});
export const KeyParams = z.strictObject({ keyId: z.string().min(1).max(64) });

export const PublicKey = z.strictObject({
  id: z.string(),
  userId: z.string(),
  name: z.string().nullable(),
  prefix: z.string().describe('the first characters of the key, to recognize it'),
  createdAt: IsoTime,
  lastUsedAt: IsoTime.nullable(),
  revokedAt: IsoTime.nullable(),
  createdBy: z.string().nullable().describe('the user id of who minted the key; null: the operator, on the database file'),
  kind: z.enum(KEY_KINDS).describe('personal, invitation (exchanged once for a personal key) or delegated (minted by someone else)'),
  scope: z
    .enum(KEY_SCOPES)
    .describe('personal: what the role allows; collector: ingest, its own limits, usage and identity only (docs/keys.md)'),
  machineId: z.string().nullable().describe("a collector key's machine (the first it delivered events from); null until then"),
});
export const KeySecret = z.string().describe('the API key itself, shown only in this answer');
export const CreatedKey = z.strictObject({ apiKey: KeySecret, key: PublicKey });
export const KeyList = z.strictObject({ keys: z.array(PublicKey) });
export const RevokedKey = z.strictObject({ key: PublicKey, revoked: z.boolean().describe('false when it was revoked before') });
