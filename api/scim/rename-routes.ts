// The owners' side of a directory's rename of an owner: the renames held for them, and the confirmation
// with an owner's own personal API key (renames.ts holds them).
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { forbidden, notFound } from '../../common/errors.ts';
import type { Changes } from '../answers/changes.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { OWNERS } from '../auth/principal.ts';
import { durableRefusal } from '../keys/minting.ts';
import { declareRoute } from '../openapi/declare.ts';
import { UserParams } from '../users/schema.ts';
import { confirmRename, pendingRenames, renamedUserId } from './renames.ts';
import { CONFIRM_RENAME_PATH, ConfirmedRename, PENDING_RENAMES_PATH, PendingRenameList } from './schema.ts';

/** Owners see the directory's renames of owners held for them, and confirm one with their own key. */
export function registerRenameRoutes(app: FastifyInstance, db: Db, auth: Authenticator, changes?: Pick<Changes, 'changed'>): void {
  declareRoute(
    app,
    {
      method: 'GET',
      path: PENDING_RENAMES_PATH,
      freshness: 'credential',
      tag: 'SCIM',
      summary: "The directory's renames of owners waiting for an owner to confirm them",
      action: 'Listing held renames',
      access: { kind: 'user', roles: OWNERS },
      responses: { 200: PendingRenameList },
    },
    async ({ principal: actor }) => ({ renames: await pendingRenames(db, actor.orgId) }),
  );

  declareRoute(
    app,
    {
      method: 'POST',
      path: CONFIRM_RENAME_PATH,
      tag: 'SCIM',
      summary: "Confirm the directory's rename of an owner (userId is a user id or their current e-mail address)",
      description:
        "An owner's new e-mail address is who signs in as them, so it needs an owner's own personal API key (a JWT, a dashboard session or a key someone else minted gets 403). 404 when no rename of the user is held; 409 when the new address is another user's.",
      action: 'Confirming a directory rename of an owner',
      access: { kind: 'user', roles: OWNERS },
      params: UserParams,
      responses: { 200: ConfirmedRename },
      errors: [403, 404, 409],
    },
    async ({ principal: actor, params: { userId } }, request) => {
      const refusal = durableRefusal(actor, 'Confirming a directory rename of an owner', 'the new address signs in as that owner');
      if (refusal) throw forbidden(refusal);
      const id = await renamedUserId(db, actor.orgId, userId);
      if (!id) throw notFound(`no user ${userId.slice(0, 100)}`);
      const rename = await confirmRename(db, actor.orgId, id);
      // Cached principals and answers carry the old e-mail.
      auth.invalidate();
      changes?.changed({ kind: 'user', org: actor.orgId });
      request.log.info({ actor: actor.userId, user: rename.userId }, 'directory rename of an owner confirmed');
      return { rename };
    },
  );
}
