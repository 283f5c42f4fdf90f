// Enterprise controls: PUT stores a new revision (owner), GET returns the current one and GET …/history
// pages the revisions newest first (owners and managers). Secrets are masked in every response and
// never logged.
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import type { AccountStore } from '../accounts/store.ts';
import { ADMIN_ROLES, OWNERS } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import {
  CONTROLS_HISTORY_PATH,
  CONTROLS_PATH,
  ControlChange,
  ControlHistory,
  CurrentControls,
  HistoryQuery,
  mask,
  PutControlsBody,
  type Settings,
  unmask,
} from './schema.ts';
import { addControlRevision, type ControlRow, controlRevisions } from './store.ts';

const change = (r: ControlRow): ControlChange => ({
  revision: r.revision,
  settings: mask(JSON.parse(r.settings) as Settings),
  user: { id: r.user_id, email: r.user_email, name: r.user_name },
  updatedAt: r.updated_at,
});

export function registerControlRoutes(app: FastifyInstance, deps: { db: Db; accounts: AccountStore }): void {
  declareRoute(
    app,
    {
      method: 'PUT',
      path: CONTROLS_PATH,
      tag: 'Organization',
      summary: 'Store a new revision of the enterprise controls',
      description: 'A masked secret sent back unchanged keeps the stored one.',
      action: 'Changing enterprise controls',
      access: { kind: 'user', roles: OWNERS },
      body: PutControlsBody,
      responses: { 200: ControlChange },
    },
    async ({ principal, body }, request): Promise<ControlChange> => {
      const user = await deps.accounts.getUser(principal.orgId, principal.userId);
      const name = [user?.first_name, user?.last_name].filter(Boolean).join(' ') || principal.email;
      const stored = await addControlRevision(
        deps.db,
        principal.orgId,
        { userId: principal.userId, email: principal.email, name },
        (previous) => unmask(body.settings, previous),
      );
      // The revision only: settings may hold secrets and never reach a log line.
      request.log.info({ revision: stored }, 'enterprise controls changed');
      const [row] = await controlRevisions(deps.db, principal.orgId, stored + 1, 1);
      return change(row!);
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: CONTROLS_PATH,
      freshness: 'setting',
      tag: 'Organization',
      summary: 'The current enterprise controls (secrets masked)',
      action: 'Reading enterprise controls',
      access: { kind: 'user', roles: ADMIN_ROLES },
      responses: { 200: CurrentControls },
    },
    async ({ principal }) => {
      const [row] = await controlRevisions(deps.db, principal.orgId, null, 1);
      return row ? change(row) : { revision: 0, settings: {} };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: CONTROLS_HISTORY_PATH,
      freshness: 'setting',
      tag: 'Organization',
      summary: 'Revisions of the enterprise controls, newest first',
      action: 'Reading the enterprise-control history',
      access: { kind: 'user', roles: ADMIN_ROLES },
      query: HistoryQuery,
      responses: { 200: ControlHistory },
    },
    async ({ principal, query }): Promise<ControlHistory> => {
      const limit = query.limit ?? 20;
      const rows = await controlRevisions(deps.db, principal.orgId, query.cursor ?? null, limit + 1);
      const shown = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      return { changes: shown.map(change), pagination: { hasMore, ...(hasMore ? { nextCursor: String(shown.at(-1)!.revision) } : {}) } };
    },
  );
}
