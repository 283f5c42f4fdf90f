// Who may use a computer. A person sees a computer they registered, or any of their organization's as an
// owner or manager; only their own credential drives it (a key someone else minted for them never runs
// anything on their machine: docs/design/whose-key-drives-a-computer.md). A computer agent is its
// computer: the authentication hook (api/server.ts) looks its token up once and puts the computer on the
// request (`request.computer`), where the agent's routes (api/sessions/agent-routes.ts) read it.
import type { FastifyInstance } from 'fastify';
import { forbidden, notFound } from '../../common/errors.ts';
import type { Principal } from '../auth/principal.ts';
import type { ComputerRow, ComputerStore } from './store.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The computer whose agent's token the request carries; undefined for every other credential. */
    computer: ComputerRow | undefined;
  }
}

/** Gives every request a `computer` (undefined until the authentication hook finds a computer's token). */
export function decorateComputer(app: FastifyInstance): void {
  app.decorateRequest('computer', undefined);
}

/**
 * 403 unless the credential is its user's own (a personal key or a JWT; see KeyKind): whoever minted a
 * delegated or invitation key holds it too, and must not act as its user on their machine.
 */
export function requirePersonalCredential(principal: Principal, what: string): void {
  if (principal.credential === 'personal') return;
  if (principal.credential === 'invitation')
    throw forbidden(
      `${what} needs your own API key; this is the invitation key given when your user was created. Exchange it once for your own key: agentmeter keys create --server URL --key <this key> --user ${principal.email}`,
    );
  throw forbidden(
    `${what} needs the user's own API key or a JWT; this key was minted by someone else (or with such a key), and keys minted for someone else never drive their computers`,
  );
}

/** May this person see the computer? (Its registrant, and the organization's owners and managers.) */
const canSeeComputer = (principal: Principal, computer: ComputerRow) =>
  computer.org_id === principal.orgId &&
  (computer.user_id === principal.userId || principal.role === 'owner' || principal.role === 'manager');

/** The computer named in a path or body, for a person: 404 unless they may see it. */
export async function visibleComputer(computers: ComputerStore, principal: Principal, id: string): Promise<ComputerRow> {
  const computer = await computers.get(principal.orgId, id);
  if (!computer || !canSeeComputer(principal, computer)) throw notFound(`No computer ${id} in this organization`);
  return computer;
}
