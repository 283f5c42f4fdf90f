// Enterprise controls: PUT stores a new revision (owner), GET returns the current one and GET …/history
// pages the revisions newest first (owners and managers). Secrets are masked in every response and
// never logged.
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Db } from '../../common/db/duckdb.ts';
import type { AccountStore } from '../accounts/store.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { ADMIN_ROLES, requireRole } from '../auth/principal.ts';
import { mask, Settings, unmask } from '../controls/schema.ts';
import { LATEST_CONTROLS } from '../controls/store.ts';
import { limitParam, wholeNumberParam } from '../query.ts';

export const Body = z.strictObject({ settings: Settings });
export const HistoryQuery = z.strictObject({
  limit: limitParam.optional(),
  // Revisions are INTEGER (from 1).
  cursor: wholeNumberParam(1, 2_147_483_647, 'cursor must be a revision number taken from pagination.nextCursor').optional(),
});

const SQL = {
  insert: `INSERT INTO enterprise_controls VALUES ($org, $revision, $settings, $user, $email, $name, now()::TIMESTAMP)`,
  page: `SELECT revision, CAST(settings AS VARCHAR) AS settings, user_id, user_email, user_name,
                strftime(updated_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS updated_at
         FROM enterprise_controls WHERE org_id = $org AND ($cursor IS NULL OR revision < $cursor)
         ORDER BY revision DESC LIMIT $limit`,
} as const;

interface Row {
  revision: number;
  settings: string;
  user_id: string;
  user_email: string;
  user_name: string;
  updated_at: string;
}

const change = (r: Row) => ({
  revision: r.revision,
  settings: mask(JSON.parse(r.settings) as Settings),
  user: { id: r.user_id, email: r.user_email, name: r.user_name },
  updatedAt: r.updated_at,
});

export function registerControlRoutes(app: FastifyInstance, deps: { db: Db; auth: Authenticator; accounts: AccountStore }): void {
  const page = (org: string, cursor: number | null, limit: number) =>
    deps.db.all<Row & Record<string, unknown>>(SQL.page, { org, cursor, limit });

  app.put('/api/v0/organization/enterprise-controls', async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ['owner'], 'Changing enterprise controls');
    const { settings } = Body.parse(request.body);
    const user = await deps.accounts.getUser(principal.orgId, principal.userId);
    const stored = await deps.db.transaction(async (tx) => {
      const [latest] = await tx.all<{ revision: number; settings: string }>(LATEST_CONTROLS, { org: principal.orgId });
      const revision = (latest?.revision ?? 0) + 1;
      const full = unmask(settings, latest ? (JSON.parse(latest.settings) as Settings) : undefined);
      const name = [user?.first_name, user?.last_name].filter(Boolean).join(' ') || principal.email;
      await tx.run(SQL.insert, {
        org: principal.orgId,
        revision,
        settings: JSON.stringify(full),
        user: principal.userId,
        email: principal.email,
        name,
      });
      return revision;
    });
    // The revision only: settings may hold secrets and never reach a log line.
    request.log.info({ revision: stored }, 'enterprise controls changed');
    const [row] = await page(principal.orgId, stored + 1, 1);
    return change(row!);
  });

  app.get('/api/v0/organization/enterprise-controls', async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ADMIN_ROLES, 'Reading enterprise controls');
    const [row] = await page(principal.orgId, null, 1);
    return row ? change(row) : { revision: 0, settings: {} };
  });

  app.get('/api/v0/organization/enterprise-controls/history', async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ADMIN_ROLES, 'Reading the enterprise-control history');
    const query = HistoryQuery.parse(request.query ?? {});
    const limit = query.limit ?? 20;
    const cursor = query.cursor ?? null;
    const rows = await page(principal.orgId, cursor, limit + 1);
    const shown = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return { changes: shown.map(change), pagination: { hasMore, ...(hasMore ? { nextCursor: String(shown.at(-1)!.revision) } : {}) } };
  });
}
