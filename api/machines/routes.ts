// GET /api/v0/machines: owners and managers see every machine of the organization that shipped events;
// members see their own machines; guests 403.
// GET /api/v0/machines/keys: the collector keys, each with the machine it delivers from (null until its
// first delivery), for the machines page, which revokes them (DELETE /api/v0/admin/keys/{keyId}). The
// same roles and rule: owners and managers all of the organization's, members their own.
import type { FastifyInstance } from 'fastify';
import type { AccountStore } from '../accounts/store.ts';
import type { Authenticator } from '../auth/authenticator.ts';
import { ADMIN_ROLES, requireRole } from '../auth/principal.ts';
import { keyView } from '../keys/store.ts';
import { NoQuery } from '../query.ts';
import type { MachineStore } from './store.ts';

export const MACHINE_KEYS_PATH = '/api/v0/machines/keys';

export function registerMachineRoutes(
  app: FastifyInstance,
  deps: { auth: Authenticator; machines: MachineStore; accounts: AccountStore },
): void {
  app.get('/api/v0/machines', async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ['owner', 'manager', 'member'], 'Listing machines');
    NoQuery.parse(request.query ?? {});
    const machines = await deps.machines.list(principal.orgId, ADMIN_ROLES.includes(principal.role) ? null : principal.userId);
    return { machines };
  });

  app.get(MACHINE_KEYS_PATH, async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ['owner', 'manager', 'member'], 'Listing collector keys');
    NoQuery.parse(request.query ?? {});
    const keys = await deps.accounts.listCollectorKeys(principal.orgId, ADMIN_ROLES.includes(principal.role) ? null : principal.userId);
    return { keys: keys.map(keyView) };
  });
}
