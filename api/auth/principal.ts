// Who a request is: the principal its credential stands for (an API key, a JWT or the dashboard's
// session cookie), the roles a person can hold, and the check a route makes of them. Every route that
// needs a person reads the principal the authentication hook (hook.ts) put on the request.

import { forbidden } from '../../common/errors.ts';
import type { ApiKeyId, OrgId, UserId } from '../../common/ids.ts';
import type { KeyScope } from '../../common/key-scopes.ts';
import type { Role } from '../../common/roles.ts';
import type { KeyKind } from '../keys/schema.ts';

export { ROLES, Role } from '../../common/roles.ts';

/** Roles in order of what they may do: a credential never grants more than its user's current rank. */
export const ROLE_RANK: Record<Role, number> = { guest: 0, member: 1, manager: 2, owner: 3 };

export interface Principal {
  orgId: OrgId;
  userId: UserId;
  email: string;
  role: Role;
  keyId?: ApiKeyId;
  /** What this credential is to its user (a JWT is personal). */
  credential: KeyKind;
  /** What the credential may do; absent: personal (a JWT, a dashboard session). */
  scope?: KeyScope;
  /** How the request authenticated; absent: unknown, which mints no personal key. */
  via?: 'key' | 'jwt' | 'session';
  /**
   * The key someone else minted that this credential stands on: a delegated or invitation key, or the
   * dashboard session signed in with one. Its minter holds it too, so what it mints ends with it.
   */
  heldWith?: ApiKeyId;
}

export function requireRole(principal: Principal, roles: readonly Role[], what: string): void {
  if (!roles.includes(principal.role)) {
    throw forbidden(`${what} requires the ${roles.join(' or ')} role; this credential has ${principal.role}`);
  }
}

export const ADMIN_ROLES: readonly Role[] = ['owner', 'manager'];
export const ANALYTICS_ROLES: readonly Role[] = ['owner', 'manager'];
/** Everyone of the organization but guests. */
export const PEOPLE: readonly Role[] = ['owner', 'manager', 'member'];
export const OWNERS: readonly Role[] = ['owner'];
