// GET /api/v0/machines: owners and managers see every machine of the organization that shipped events;
// members see their own machines; guests 403.
import type { FastifyInstance } from 'fastify';
import { ADMIN_ROLES, type Authenticator, requireRole } from '../auth.ts';
import { NoQuery } from '../query.ts';
import type { MachineStore } from './store.ts';

export function registerMachineRoutes(app: FastifyInstance, deps: { auth: Authenticator; machines: MachineStore }): void {
  app.get('/api/v0/machines', async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ['owner', 'manager', 'member'], 'Listing machines');
    NoQuery.parse(request.query ?? {});
    const machines = await deps.machines.list(principal.orgId, ADMIN_ROLES.includes(principal.role) ? null : principal.userId);
    return { machines };
  });
}
