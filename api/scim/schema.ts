// SCIM 2.0 (RFC 7643 resources, RFC 7644 protocol): the schema URNs, the request bodies as directories
// send them, and the error a /scim/v2 route answers with. Bodies are read leniently where real directories
// differ from the RFC: Microsoft Entra ID sends booleans as the strings "True"/"False" and operation names
// capitalized ("Replace"); attributes agentmeter does not keep (title, phone numbers, the enterprise
// extension, a password) are accepted and ignored, so provisioning a full profile never fails on them.
import { z } from 'zod';
import { HttpError } from '../../common/errors.ts';
import { teamNameSchema } from '../../common/team-name.ts';
import { IsoTime } from '../http/dates.ts';

export const SCIM = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  list: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patch: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

export const SCIM_CONTENT_TYPE = 'application/scim+json; charset=utf-8';
/** The most resources one list answer holds (ServiceProviderConfig.filter.maxResults). */
export const MAX_RESULTS = 200;

/** The scimType values of RFC 7644 §3.12 this server answers with. */
export type ScimType = 'invalidFilter' | 'uniqueness' | 'mutability' | 'invalidSyntax' | 'invalidPath' | 'invalidValue' | 'noTarget';

/** An error a /scim/v2 route answers with as a SCIM error body (status as a string, scimType, detail). */
export class ScimError extends HttpError {
  constructor(
    status: number,
    detail: string,
    readonly scimType?: ScimType,
  ) {
    super(status, detail);
  }
}

export interface ScimErrorBody {
  schemas: [typeof SCIM.error];
  status: string;
  scimType?: ScimType;
  detail: string;
}

export const scimErrorBody = (status: number, detail: string, scimType?: ScimType): ScimErrorBody => ({
  schemas: [SCIM.error],
  status: String(status),
  ...(scimType ? { scimType } : {}),
  detail,
});

/** A SCIM boolean: true/false, or the strings "True"/"False" in any case (Microsoft Entra ID). */
export const scimBoolean = z.union([
  z.boolean(),
  z
    .string()
    .regex(/^(true|false)$/i, 'must be true or false')
    .transform((s) => s.toLowerCase() === 'true'),
]);

const optionalText = z.string().max(500).nullish();

/** A User as POST and PUT send it. `userName` is the person's e-mail, their identity in agentmeter. */
export const UserBody = z.looseObject({
  schemas: z.array(z.string()).optional(),
  userName: z.email('userName must be the person’s e-mail address').max(320),
  externalId: optionalText,
  displayName: optionalText,
  name: z.looseObject({ givenName: optionalText, familyName: optionalText, formatted: optionalText }).nullish(),
  active: scimBoolean.optional(),
});
export type UserBody = z.infer<typeof UserBody>;

/** A Group as POST and PUT send it: a team of the same name. */
export const GroupBody = z.looseObject({
  schemas: z.array(z.string()).optional(),
  displayName: teamNameSchema('a team name'),
  externalId: optionalText,
  members: z.array(z.looseObject({ value: z.string().min(1).max(200) })).optional(),
});
export type GroupBody = z.infer<typeof GroupBody>;

export const PatchOperation = z.looseObject({
  op: z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(['add', 'remove', 'replace'], 'op must be add, remove or replace')),
  path: z.string().max(500).optional(),
  value: z.unknown().optional(),
});
export type PatchOperation = z.infer<typeof PatchOperation>;

export const PatchBody = z.looseObject({
  schemas: z.array(z.string()).optional(),
  Operations: z.array(PatchOperation).min(1, 'Operations must hold at least one operation').max(1000),
});

/** startIndex (1-based) and count of a list (RFC 7644 §3.4.2.4); out-of-range values are clamped as the RFC says. */
export const ListQuery = z.looseObject({
  filter: z.string().max(1000).optional(),
  startIndex: z.coerce.number().int().optional(),
  count: z.coerce.number().int().optional(),
});

export const IdParams = z.strictObject({ id: z.string().min(1).max(200) });

/** The owners' routes that mint, list and revoke the directory's tokens. */
export const SCIM_TOKENS_PATH = '/api/v0/admin/scim/tokens';
export const SCIM_TOKEN_PATH = `${SCIM_TOKENS_PATH}/:tokenId`;
/** The directory's renames of owners waiting for an owner (api/scim/renames.ts), and the confirmation of one. */
export const PENDING_RENAMES_PATH = '/api/v0/admin/scim/pending-renames';
export const CONFIRM_RENAME_PATH = '/api/v0/admin/users/:userId/confirm-rename';
export const PendingRenameSchema = z.strictObject({
  userId: z.string(),
  from: z.string().describe('the e-mail the owner signs in with now'),
  to: z.string().describe('the userName the directory asked for'),
  requestedAt: IsoTime,
});
export const PendingRenameList = z.strictObject({ renames: z.array(PendingRenameSchema) });
export const ConfirmedRename = z.strictObject({ rename: PendingRenameSchema });

export const TokenBody = z.strictObject({ name: z.string().max(200).optional() }).default({});
export const TokenParams = z.strictObject({ tokenId: z.string().min(1).max(64) });
export const ScimTokenSchema = z.strictObject({
  id: z.string(),
  name: z.string().nullable(),
  prefix: z.string(),
  createdBy: z.string().nullable(),
  createdAt: IsoTime,
  lastUsedAt: IsoTime.nullable(),
  revokedAt: IsoTime.nullable(),
});
export const CreatedScimToken = z.strictObject({ token: z.string(), scimToken: ScimTokenSchema });
export const ScimTokenList = z.strictObject({ tokens: z.array(ScimTokenSchema) });
export type ScimTokenList = z.infer<typeof ScimTokenList>;
export const RevokedScimToken = z.strictObject({ scimToken: ScimTokenSchema, revoked: z.boolean() });
export type RevokedScimToken = z.infer<typeof RevokedScimToken>;
