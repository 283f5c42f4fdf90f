// GET /api/v0/usage/users/{userId|me}?startDate&endDate: one person's daily rows, in the records of
// /api/v1/analytics/users. The analytics API is organization-wide and for owners and managers only; this
// is how a member reads their own usage (the dashboard's "My usage"), and how the dashboard shows one
// person's days. Owners and managers: anyone in the organization. Members: themselves only (anyone else
// is 404, as for ids of another organization). Guests: 403.
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../common/errors.ts';
import { userRecords } from '../analytics/assemble.ts';
import { parseAnalyticsQuery } from '../analytics/query.ts';
import type { AnalyticsStore } from '../analytics/store.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { ADMIN_ROLES, requireRole } from '../auth/principal.ts';
import type { AccountStore } from '../accounts/store.ts';
import { UsageParams } from './schema.ts';

export function registerUsageRoutes(
  app: FastifyInstance,
  deps: { auth: Authenticator; accounts: AccountStore; analytics: AnalyticsStore; now?: () => Date },
): void {
  const now = deps.now ?? (() => new Date());
  // A collector key reads its own user's usage only (what a status line shows), whatever the role.
  app.get('/api/v0/usage/users/:userId', { config: { collectorKey: true } }, async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ['owner', 'manager', 'member'], 'Reading usage');
    const { userId: asked } = UsageParams.parse(request.params);
    const userId = asked === 'me' ? principal.userId : asked;
    if (userId !== principal.userId && (!ADMIN_ROLES.includes(principal.role) || principal.scope === 'collector'))
      throw notFound(`No user ${asked} in this organization`);
    const user = await deps.accounts.getUser(principal.orgId, userId);
    if (!user) throw notFound(`No user ${asked} in this organization`);
    // The same date rules as the analytics API ('productivity' takes exactly startDate and endDate).
    const q = parseAnalyticsQuery('productivity', request.query, now());
    const rows = await deps.analytics.userRows(principal.orgId, q.startDate, q.endDate, [user.id]);
    return {
      data: userRecords(rows),
      meta: {
        org_id: principal.orgId,
        start_date: q.startDate,
        end_date: q.endDate,
        user_id: user.id,
        user_email: user.email,
        role: user.role,
      },
    };
  });
}
