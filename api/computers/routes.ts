// Computers, for people (API keys, JWTs, the dashboard): register one (bring your own machine), list them,
// read one with its status. Who may do what:
//   register                owner, manager, member (not guest), with their own credential, when the
//                           enterprise controls allow BYOM
//   GET /computers[/{id}]   the user who registered it, and the organization's owners and managers
// Another organization's computer, or one the caller may not see, is 404 (ids do not leak). The computer
// agent's own routes, with the computer's token, drive the session queue: api/sessions/agent-routes.ts.
import type { FastifyInstance } from 'fastify';
import { RegisterBody } from '../../common/computer-protocol.ts';
import type { Db } from '../../common/db/duckdb.ts';
import { forbidden, unauthorized } from '../../common/errors.ts';
import { PEOPLE } from '../auth/principal.ts';
import { currentControls } from '../controls/store.ts';
import { durableRefusal } from '../keys/minting.ts';
import { declareRoute } from '../openapi/declare.ts';
import { requirePersonalCredential, visibleComputer } from './access.ts';
import { COMPUTER_PATH, COMPUTERS_PATH, ComputerPage, ComputerSchema, IdParams, ListQuery, RegisteredComputer } from './schema.ts';
import { computerCounts } from './status.ts';
import { type ComputerStore, toComputer } from './store.ts';

/** The user was removed, or the key revoked, between the request's authentication and its registration. */
const GONE_WHILE_REGISTERING = 'this key was revoked, or its user removed, while the computer was being registered; nothing was registered';

export interface ComputerDeps {
  db: Db;
  computers: ComputerStore;
  now: () => number;
}

const REGISTERING = 'Registering a computer';

export function registerComputerRoutes(app: FastifyInstance, deps: ComputerDeps): void {
  declareRoute(
    app,
    {
      method: 'POST',
      path: COMPUTERS_PATH,
      tag: 'Computers',
      summary: 'Register a computer (bring your own machine)',
      action: REGISTERING,
      access: { kind: 'user', roles: PEOPLE },
      body: RegisterBody,
      responses: { 201: RegisteredComputer },
      // Whose credential it is decides before the body is read, after the role, as it always has: a
      // delegated key is told so (403) whatever it sends.
      // The computer's token lasts until revoked: a JWT or a dashboard session, which end, do not mint one.
      checkFirst: (request) => {
        const principal = request.principal!;
        if (principal.via === 'key') requirePersonalCredential(principal, REGISTERING);
        const refusal = durableRefusal(principal, REGISTERING);
        if (refusal) throw forbidden(refusal);
      },
    },
    async ({ principal, body }, request, reply) => {
      const controls = await currentControls(deps.db, principal.orgId);
      if (controls?.byomComputersEnabled === false)
        throw forbidden("Bring-your-own-machine computers are turned off in this organization's enterprise controls");
      const allowed = controls?.byomComputersAllowedEmails ?? [];
      if (allowed.length > 0 && !allowed.map((e) => e.toLowerCase()).includes(principal.email.toLowerCase())) {
        throw forbidden(
          'The enterprise controls allow bring-your-own-machine computers only for listed users, and this user is not listed',
        );
      }
      // checkFirst let only a personal key through, so there is always one to tie the computer to.
      if (!principal.keyId) throw forbidden(durableRefusal(principal, REGISTERING) ?? 'Register a computer with a personal API key');
      const registered = await deps.computers.register(principal.orgId, principal.userId, body, principal.keyId);
      if (!registered) throw unauthorized(GONE_WHILE_REGISTERING);
      const { row, token } = registered;
      // The token is in the response only; the log line names the computer.
      request.log.info({ computerId: row.id, name: row.name }, 'computer registered');
      reply.status(201);
      return { computer: toComputer(row, deps.now()), token };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: COMPUTERS_PATH,
      freshness: 'live',
      tag: 'Computers',
      summary: 'List computers (owners and managers: all; members: their own)',
      action: 'Listing computers',
      access: { kind: 'user', roles: PEOPLE },
      query: ListQuery,
      responses: { 200: ComputerPage },
    },
    async ({ principal, query }) => {
      const limit = query.limit ?? 20;
      const admin = principal.role === 'owner' || principal.role === 'manager';
      const rows = await deps.computers.list(principal.orgId, admin ? null : principal.userId, query.cursor ?? null, limit + 1);
      const page = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      const now = deps.now();
      return {
        computers: page.map((row) => toComputer(row, now)),
        pagination: { hasMore, ...(hasMore ? { nextCursor: page.at(-1)!.id } : {}) },
        counts: computerCounts(await deps.computers.times(principal.orgId, admin ? null : principal.userId), now),
      };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: COMPUTER_PATH,
      freshness: 'live',
      tag: 'Computers',
      summary: 'A computer and its status',
      action: 'Reading a computer',
      access: { kind: 'user', roles: PEOPLE },
      params: IdParams,
      responses: { 200: ComputerSchema },
    },
    async ({ principal, params }) => toComputer(await visibleComputer(deps.computers, principal, params.computerId), deps.now()),
  );
}
