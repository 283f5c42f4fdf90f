// GET /api/v0/machines: owners and managers see every machine of the organization that shipped events;
// members see their own machines; guests 403.
// GET /api/v0/machines/keys: the collector keys, each with the machine it delivers from (null until its
// first delivery), for the machines page, which revokes them (DELETE /api/v0/admin/keys/{keyId}). Whose
// keys are listed is the admin keys route's rule (mayManage): owners everyone's, managers their own and
// members' and guests', members their own.
import type { FastifyInstance } from 'fastify';
import type { AccountStore } from '../accounts/store.ts';
import { ADMIN_ROLES, PEOPLE } from '../auth/principal.ts';
import { NoQuery } from '../http/query.ts';
import { mayManage } from '../keys/minting.ts';
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
        'A collector key is listed under a machine from its first delivery (the collector’s x-agentmeter-machine header); null before. ' +
        'The keys listed are those the admin keys route lets the caller list: an owner the organization’s, a manager their own and members’ and guests’, a member their own.',
      action: 'Listing collector keys',
      access: { kind: 'user', roles: PEOPLE },
      query: NoQuery,
      responses: { 200: KeyList },
    },
    async ({ principal }) => {
      const keys = await deps.accounts.listCollectorKeys(principal.orgId, ADMIN_ROLES.includes(principal.role) ? null : principal.userId);
      // Whose keys: the admin keys route's rule (mayManage). An owner manages anyone's (a removed user's
      // revoked keys too) and a member was given only their own; a manager no owner's or other manager's.
      if (principal.role !== 'manager') return { keys: keys.map(keyView) };
      const manages = new Map<string, boolean>();
      for (const userId of new Set(keys.map((k) => k.user_id))) {
        const user = await deps.accounts.getUser(principal.orgId, userId);
        manages.set(userId, user !== undefined && mayManage(principal, user));
      }
      return { keys: keys.filter((k) => manages.get(k.user_id)).map(keyView) };
    },
  );
}
