// GET /api/v0/machines: owners and managers see every machine of the organization that shipped events;
// members see their own machines; guests 403.
// GET /api/v0/machines/keys: the collector keys, each with the machine it delivers from (null until its
// first delivery), for the machines page, which revokes them (DELETE /api/v0/admin/keys/{keyId}). The
// same roles and rule: owners and managers all of the organization's, members their own.
import type { FastifyInstance } from 'fastify';
import type { AccountStore } from '../accounts/store.ts';
import { ADMIN_ROLES, PEOPLE } from '../auth/principal.ts';
import { NoQuery } from '../http/query.ts';
import { KeyList } from '../keys/schema.ts';
import { keyView } from '../keys/store.ts';
import { declareRoute } from '../openapi/declare.ts';
import { MACHINE_KEYS_PATH, MACHINES_PATH, MachineList } from './schema.ts';
import type { MachineStore } from './store.ts';

export function registerMachineRoutes(app: FastifyInstance, deps: { machines: MachineStore; accounts: AccountStore }): void {
  declareRoute(
    app,
    {
      method: 'GET',
      path: MACHINES_PATH,
      freshness: 'live',
      tag: 'Machines',
      summary: 'Machines that shipped events, with their latest event and delivery (members: their own)',
      action: 'Listing machines',
      access: { kind: 'user', roles: PEOPLE },
      query: NoQuery,
      responses: { 200: MachineList },
    },
    async ({ principal }): Promise<MachineList> => {
      const machines = await deps.machines.list(principal.orgId, ADMIN_ROLES.includes(principal.role) ? null : principal.userId);
      return { machines };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: MACHINE_KEYS_PATH,
      freshness: 'credential',
      tag: 'Machines',
      summary: 'Collector keys with the machine each delivers from (members: their own); revoke one with DELETE /api/v0/admin/keys/{keyId}',
      description:
        'A collector key is listed under a machine from its first delivery (the collector’s x-agentmeter-machine header); null before.',
      action: 'Listing collector keys',
      access: { kind: 'user', roles: PEOPLE },
      query: NoQuery,
      responses: { 200: KeyList },
    },
    async ({ principal }) => {
      const keys = await deps.accounts.listCollectorKeys(principal.orgId, ADMIN_ROLES.includes(principal.role) ? null : principal.userId);
      return { keys: keys.map(keyView) };
    },
  );
}
