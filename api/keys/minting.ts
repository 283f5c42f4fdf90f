// Who may mint which key, and what it is to its user. Pure rules, kept apart from the routes and the
// store that apply them so they read (and are tested) in one place: the kind a key gets from who minted
// it (KeyKind, schema.ts), the credential a key of each scope needs, and whose keys a person manages.
import { type Principal, ROLE_RANK } from '../auth/principal.ts';
import type { User } from '../users/store.ts';
import type { KeyKind } from './schema.ts';

/** Who mints a key: a person through the server (with the credential they used), or the operator. */
export type Minter = { userId: string; credential: KeyKind } | 'operator';

/**
 * The kind of a key `minter` mints for `userId`. Pure. The operator's keys are personal (whoever holds the
 * database can do anything anyway); a person's key for themselves is as strong as the credential they used
 * (a delegated or invitation key cannot mint a personal one, else its holder could); for anyone else it
 * is delegated.
 */
export function keyKindFor(minter: Minter, userId: string): KeyKind {
  if (minter === 'operator') return 'personal';
  return minter.userId === userId && minter.credential === 'personal' ? 'personal' : 'delegated';
}

/** The minter a person is, with the credential of their request. */
export const minter = (actor: Principal) => ({ userId: actor.userId, credential: actor.credential });

/**
 * Why `actor` may not mint a key of `scope`, or undefined. Pure. A personal key needs a personal API key:
 * a JWT or a dashboard session is short-lived, and a key minted with it would outlive it; a collector key
 * may mint nothing (its routes stop it before this). A collector key may be minted by any of them: it
 * can do little, and is meant to last on a machine until revoked.
 */
export function mintRefusal(actor: Pick<Principal, 'via' | 'scope'>, scope: 'personal' | 'collector'): string | undefined {
  if (actor.scope === 'collector') return 'a collector key cannot mint keys';
  if (scope === 'collector') return undefined;
  if (actor.via !== 'key')
    return `minting a personal key needs a personal API key (Authorization: Bearer am_…); ${actor.via === 'jwt' ? 'a JWT' : 'a dashboard session'} mints collector keys for its own user only ("scope": "collector")`;
  return undefined;
}

/**
 * Why `actor` may not mint `what`, a credential that outlives the one it is minted with (a SCIM token, a
 * computer's token, a key for someone else), or undefined. Pure. Only a personal API key mints one: a JWT
 * or a dashboard session ends, and what it minted would stay; a key someone else minted (delegated,
 * invitation) or a collector key is not its holder's own to hand on.
 */
export function durableRefusal(
  actor: Pick<Principal, 'via' | 'scope' | 'credential'>,
  what: string,
  why = 'it outlives the credential that mints it',
): string | undefined {
  if (actor.via === 'key' && actor.credential === 'personal' && actor.scope !== 'collector') return undefined;
  const used =
    actor.via === 'jwt'
      ? 'a JWT'
      : actor.via === 'session'
        ? 'a dashboard session'
        : actor.scope === 'collector'
          ? 'a collector key'
          : actor.credential === 'invitation'
            ? 'an invitation key'
            : actor.via === 'key'
              ? 'a key someone else minted for you'
              : 'this credential';
  return `${what} needs your own personal API key (Authorization: Bearer am_…): ${why}, and ${used} may not do it`;
}

/** May `actor` manage `target`'s keys? Owners: everyone's; managers: members' and guests'; everyone: their own. */
export function mayManage(actor: Principal, target: Pick<User, 'id' | 'role'>): boolean {
  if (actor.userId === target.id) return true;
  if (actor.role === 'owner') return true;
  return actor.role === 'manager' && ROLE_RANK[target.role] < ROLE_RANK.manager;
}
