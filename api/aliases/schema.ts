// The shapes of a user's other addresses (docs/metrics.md §5): a landed commit authored by one lands for
// that user. Owners set them (`agentmeter users alias add|remove`); the directory's extra e-mails come
// through SCIM. A collector asks for its own user's addresses to know which commits are theirs.
import { z } from 'zod';
import { IsoTime } from '../http/dates.ts';

export const ALIASES_PATH = '/api/v0/admin/users/:userId/aliases';
export const ALIAS_PATH = '/api/v0/admin/users/:userId/aliases/:email';
export const MY_ADDRESSES_PATH = '/api/v0/me/addresses';

/** An address as the server keeps it: trimmed, lower case, one @, no space or control character. */
export const Address = z
  .string()
  .trim()
  .min(3)
  .max(320)
  .regex(/^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u, 'must be an e-mail address')
  .transform((s) => s.toLowerCase());

export const AliasParams = z.strictObject({ userId: z.string().min(1).max(320) });
export const AliasItemParams = z.strictObject({ userId: z.string().min(1).max(320), email: z.string().min(1).max(320) });
export const AliasBody = z.strictObject({ email: Address });

export const Alias = z.strictObject({
  email: z.string(),
  source: z.enum(['owner', 'directory']).describe('who gave it: an owner, or the directory (SCIM e-mails)'),
  created_at: IsoTime,
});
export const AliasList = z.strictObject({ data: z.array(Alias), meta: z.strictObject({ user_id: z.string() }) });
export type AliasList = z.infer<typeof AliasList>;

export const MyAddresses = z.strictObject({
  data: z.strictObject({ addresses: z.array(z.string()).describe("the caller's e-mail first, then their aliases") }),
});
export type MyAddresses = z.infer<typeof MyAddresses>;
