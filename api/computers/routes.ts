// Computers: registration and lookup for people (API keys), and the agent protocol for the computer agent
// (its own token): hello with its start-up checks, a long-poll for work, start, heartbeat and result of a
// run. Who may do what:
//   register                owner, manager, member (not guest), when the enterprise controls allow BYOM
//   GET /computers[/{id}]   the user who registered it, and the organization's owners and managers
//   agent routes            the computer's own token, for that computer only
// Registering, and (api/routes/sessions.ts) creating sessions and sending messages, also need the user's
// personal credential (`requirePersonalCredential`): a key someone else minted for them never runs
// anything on their machine.
// Another organization's computer, or one the caller may not see, is 404 (ids do not leak).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { COMPUTER_TOKEN_PREFIX, HelloBody, type PollAnswer, PollQuery, RegisterBody, ResultBody } from '../../common/computer-protocol.ts';
import type { Db } from '../../common/db/duckdb.ts';
import { forbidden, HttpError, notFound, unauthorized } from '../../common/errors.ts';
import { type Authenticator, bearerToken } from '../auth/authenticator.ts';
import type { Principal } from '../auth/principal.ts';
import { requireRole } from '../auth/principal.ts';
import { type ComputerRow, type ComputerStore, toComputer } from '../computers/store.ts';
import { currentControls } from '../controls/store.ts';
import { limitParam } from '../query.ts';
import type { SessionStore } from '../sessions/store.ts';
import type { WorkSignal } from '../sessions/work-signal.ts';

export const ListQuery = z.strictObject({ limit: limitParam.optional(), cursor: z.string().min(1).max(64).optional() });
export const IdParams = z.strictObject({ computerId: z.string().min(1).max(64) });
export const RunParams = z.strictObject({ computerId: z.string().min(1).max(64), messageId: z.string().min(1).max(64) });
/** Long-polls wait at most this long unless the agent asks for less. */
const DEFAULT_WAIT_MS = 25_000;

export interface ComputerDeps {
  db: Db;
  auth: Authenticator;
  computers: ComputerStore;
  sessions: SessionStore;
  signal: WorkSignal;
  now: () => number;
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
export const canSeeComputer = (principal: Principal, computer: ComputerRow) =>
  computer.org_id === principal.orgId &&
  (computer.user_id === principal.userId || principal.role === 'owner' || principal.role === 'manager');

/** The computer named in a path or body, for a person: 404 unless they may see it. */
export async function visibleComputer(deps: Pick<ComputerDeps, 'computers'>, principal: Principal, id: string): Promise<ComputerRow> {
  const computer = await deps.computers.get(principal.orgId, id);
  if (!computer || !canSeeComputer(principal, computer)) throw notFound(`No computer ${id} in this organization`);
  return computer;
}

export function registerComputerRoutes(app: FastifyInstance, deps: ComputerDeps): void {
  /** The computer whose token this is; 401 for a missing or unknown token, 404 when it is another computer's. */
  const authenticateComputer = async (request: FastifyRequest, id: string): Promise<ComputerRow> => {
    const token = bearerToken(request);
    if (!token.startsWith(COMPUTER_TOKEN_PREFIX))
      throw unauthorized('The computer agent authenticates with its computer token: "Authorization: Bearer amc_…"');
    const computer = await deps.computers.byToken(token);
    if (!computer) throw unauthorized('Computer token unknown (the computer may have been registered again)');
    if (computer.id !== id) throw notFound(`No computer ${id} for this token`);
    return computer;
  };

  app.post('/api/v0/computers', async (request, reply) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ['owner', 'manager', 'member'], 'Registering a computer');
    requirePersonalCredential(principal, 'Registering a computer');
    const body = RegisterBody.parse(request.body);
    const controls = await currentControls(deps.db, principal.orgId);
    if (controls?.byomComputersEnabled === false)
      throw forbidden("Bring-your-own-machine computers are turned off in this organization's enterprise controls");
    const allowed = controls?.byomComputersAllowedEmails ?? [];
    if (allowed.length > 0 && !allowed.map((e) => e.toLowerCase()).includes(principal.email.toLowerCase())) {
      throw forbidden('The enterprise controls allow bring-your-own-machine computers only for listed users, and this user is not listed');
    }
    const { row, token } = await deps.computers.register(principal.orgId, principal.userId, body);
    // The token is in the response only; the log line names the computer.
    request.log.info({ computerId: row.id, name: row.name }, 'computer registered');
    return reply.status(201).send({ computer: toComputer(row, deps.now()), token });
  });

  app.get('/api/v0/computers', async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ['owner', 'manager', 'member'], 'Listing computers');
    const query = ListQuery.parse(request.query ?? {});
    const limit = query.limit ?? 20;
    const admin = principal.role === 'owner' || principal.role === 'manager';
    const rows = await deps.computers.list(principal.orgId, admin ? null : principal.userId, query.cursor ?? null, limit + 1);
    const page = rows.slice(0, limit);
    const hasMore = rows.length > limit;
    return {
      computers: page.map((row) => toComputer(row, deps.now())),
      pagination: { hasMore, ...(hasMore ? { nextCursor: page.at(-1)!.id } : {}) },
    };
  });

  app.get('/api/v0/computers/:computerId', async (request) => {
    const principal = await deps.auth.authenticate(request);
    requireRole(principal, ['owner', 'manager', 'member'], 'Reading a computer');
    const { computerId } = IdParams.parse(request.params);
    return toComputer(await visibleComputer(deps, principal, computerId), deps.now());
  });

  app.post('/api/v0/computers/:computerId/agent/hello', async (request) => {
    const { computerId } = IdParams.parse(request.params);
    const computer = await authenticateComputer(request, computerId);
    const body = HelloBody.parse(request.body);
    await deps.computers.hello(computer.id, body.checks);
    const recovered = await deps.sessions.computerRestarted(computer.id);
    const failed = body.checks.filter((c) => !c.ok).map((c) => c.name);
    request.log.info({ computerId: computer.id, failedChecks: failed, ...recovered }, 'computer agent connected');
    return toComputer((await deps.computers.get(computer.org_id, computer.id))!, deps.now());
  });

  app.get('/api/v0/computers/:computerId/agent/work', async (request): Promise<PollAnswer> => {
    const { computerId } = IdParams.parse(request.params);
    const computer = await authenticateComputer(request, computerId);
    const { waitMs } = PollQuery.parse(request.query ?? {});
    if (computer.first_seen_ms === null)
      throw new HttpError(409, 'The computer agent must say hello (POST …/agent/hello) before it asks for work');
    if (computer.checks_error !== null)
      throw new HttpError(409, `The computer's checks failed (${computer.checks_error}); fix them and restart the computer agent`);
    const deadline = Date.now() + (waitMs ?? DEFAULT_WAIT_MS);
    for (;;) {
      await deps.computers.seen(computer.id);
      const work = await deps.sessions.claim(computer.id);
      if (work) {
        request.log.info({ computerId: computer.id, sessionId: work.sessionId, messageId: work.messageId }, 'message handed to computer');
        return { work };
      }
      const left = deadline - Date.now();
      // Ends at once when the server closes (the signal no longer waits, so the loop would only spin).
      if (left <= 0 || request.raw.destroyed || deps.signal.closed) return { work: null };
      await deps.signal.wait(computer.id, left);
      if (request.raw.destroyed || deps.signal.closed) return { work: null };
    }
  });

  const runAction = (action: 'start' | 'heartbeat') => async (request: FastifyRequest) => {
    const { computerId, messageId } = RunParams.parse(request.params);
    const computer = await authenticateComputer(request, computerId);
    await deps.computers.seen(computer.id);
    const result = await deps.sessions[action](computer.id, messageId);
    if (result.outcome === 'not-found') throw notFound(`No message ${messageId} for this computer`);
    if (result.outcome === 'conflict')
      throw new HttpError(409, `Message ${messageId} is no longer this computer's to run (its lease ran out)`);
    if (action === 'start') request.log.info({ computerId, messageId }, 'message running');
    return { leaseUntil: result.leaseUntil! };
  };
  app.post('/api/v0/computers/:computerId/agent/messages/:messageId/start', runAction('start'));
  app.post('/api/v0/computers/:computerId/agent/messages/:messageId/heartbeat', runAction('heartbeat'));

  // The answer is capped at 1M characters; as UTF-8 JSON a character can take up to 6 bytes (\u escapes).
  app.post('/api/v0/computers/:computerId/agent/messages/:messageId/result', { bodyLimit: 7 * 1024 * 1024 }, async (request) => {
    const { computerId, messageId } = RunParams.parse(request.params);
    const computer = await authenticateComputer(request, computerId);
    const body = ResultBody.parse(request.body);
    await deps.computers.seen(computer.id);
    const result = await deps.sessions.finish(computer.id, messageId, body);
    if (result.outcome === 'not-found') throw notFound(`No message ${messageId} for this computer`);
    if (result.outcome === 'conflict') throw new HttpError(409, `Message ${messageId} is not running on this computer`);
    // The next queued message of this computer may now run.
    deps.signal.notify(computer.id);
    request.log.info(
      { computerId, messageId, exitCode: body.exitCode, failed: body.error !== undefined || body.exitCode !== 0 },
      'message finished',
    );
    return { status: result.status ?? 'idle' };
  });
}
