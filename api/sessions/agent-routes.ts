// The computer agent's protocol (`agentmeter computer run`, computer/): it says hello with its start-up
// checks, long-polls for the next queued message of its computer, reports that a run started, renews its
// lease while the agent process runs, and reports the result. These routes drive the session queue
// (store.ts) that the people's routes (routes.ts) fill, so they live beside it.
// Access: the computer's own token (amc_…), for that computer only. The authentication hook looks the
// token up once and puts the computer on the request (api/computers/access.ts); a route here only checks
// that it is the computer of the path, before reading any input but the path: any other credential is
// 401, another computer's token 404.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { HelloBody, LeaseAnswer, PollAnswer, PollQuery, ResultBody } from '../../common/computer-protocol.ts';
import { HttpError, notFound, unauthorized } from '../../common/errors.ts';
import { bearerToken } from '../auth/authenticator.ts';
import { ComputerSchema } from '../computers/schema.ts';
import { type ComputerRow, type ComputerStore, toComputer } from '../computers/store.ts';
import { type CheckFirst, declareRoute } from '../openapi/declare.ts';
import { AGENT_HELLO_PATH, AGENT_WORK_PATH, AgentParams, agentRunPath, ResultAnswer, RunParams } from './schema.ts';
import type { SessionStore } from './store.ts';
import type { WorkSignal } from './work-signal.ts';

/** Long-polls wait at most this long unless the agent asks for less. */
const DEFAULT_WAIT_MS = 25_000;

export interface ComputerAgentDeps {
  computers: ComputerStore;
  sessions: SessionStore;
  signal: WorkSignal;
  now: () => number;
}

/** The computer's own token (amc_…). */
const computerToken = { kind: 'computer' } as const;

/** The computer of the request's token when it is the computer of the path: 401 for any other credential, 404 for another computer's token. */
function pathComputer(request: FastifyRequest, computerId: string): ComputerRow {
  const found = request.computer;
  if (!found) {
    // The dashboard's cookie without an Authorization header: that header's own 401.
    bearerToken(request);
    throw unauthorized('The computer agent authenticates with its computer token: "Authorization: Bearer amc_…"');
  }
  if (found.id !== computerId) throw notFound(`No computer ${computerId} for this token`);
  return found;
}

/** Checks the computer right after the path and before the query and body, as a person's role is checked. */
const computerFirst =
  (params: z.ZodType<{ computerId: string }>): CheckFirst =>
  (request) => {
    pathComputer(request, params.parse(request.params).computerId);
  };

export function registerComputerAgentRoutes(app: FastifyInstance, deps: ComputerAgentDeps): void {
  declareRoute(
    app,
    {
      method: 'POST',
      path: AGENT_HELLO_PATH,
      tag: 'Computer agent',
      summary: 'The computer agent starts: its start-up checks',
      access: computerToken,
      params: AgentParams,
      body: HelloBody,
      responses: { 200: ComputerSchema },
      checkFirst: computerFirst(AgentParams),
    },
    async ({ params, body }, request) => {
      const { id, org_id } = pathComputer(request, params.computerId);
      await deps.computers.hello(id, body.checks);
      const recovered = await deps.sessions.computerRestarted(id);
      const failed = body.checks.filter((c) => !c.ok).map((c) => c.name);
      request.log.info({ computerId: id, failedChecks: failed, ...recovered }, 'computer agent connected');
      return toComputer((await deps.computers.get(org_id, id))!, deps.now());
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: AGENT_WORK_PATH,
      freshness: 'live',
      tag: 'Computer agent',
      summary: 'Long-poll for the next message to run',
      access: computerToken,
      params: AgentParams,
      query: PollQuery,
      responses: { 200: PollAnswer },
      errors: [409],
      checkFirst: computerFirst(AgentParams),
    },
    async ({ params, query: { waitMs } }, request): Promise<PollAnswer> => {
      const found = pathComputer(request, params.computerId);
      if (found.first_seen_ms === null)
        throw new HttpError(409, 'The computer agent must say hello (POST …/agent/hello) before it asks for work');
      if (found.checks_error !== null)
        throw new HttpError(409, `The computer's checks failed (${found.checks_error}); fix them and restart the computer agent`);
      const deadline = Date.now() + (waitMs ?? DEFAULT_WAIT_MS);
      for (;;) {
        await deps.computers.seen(found.id);
        const work = await deps.sessions.claim(found.id);
        if (work) {
          request.log.info({ computerId: found.id, sessionId: work.sessionId, messageId: work.messageId }, 'message handed to computer');
          return { work };
        }
        const left = deadline - Date.now();
        // Ends at once when the server closes (the signal no longer waits, so the loop would only spin).
        if (left <= 0 || request.raw.destroyed || deps.signal.closed) return { work: null };
        await deps.signal.wait(found.id, left);
        if (request.raw.destroyed || deps.signal.closed) return { work: null };
      }
    },
  );

  for (const step of ['start', 'heartbeat'] as const) {
    declareRoute(
      app,
      {
        method: 'POST',
        path: agentRunPath(step),
        tag: 'Computer agent',
        summary: step === 'start' ? 'A claimed message started running' : "Renew a running message's lease",
        access: computerToken,
        params: RunParams,
        responses: { 200: LeaseAnswer },
        errors: [409],
        checkFirst: computerFirst(RunParams),
      },
      async ({ params: { computerId, messageId } }, request) => {
        const found = pathComputer(request, computerId);
        await deps.computers.seen(found.id);
        const result = await deps.sessions[step](found.id, messageId);
        if (result.outcome === 'not-found') throw notFound(`No message ${messageId} for this computer`);
        if (result.outcome === 'conflict')
          throw new HttpError(409, `Message ${messageId} is no longer this computer's to run (its lease ran out)`);
        if (step === 'start') request.log.info({ computerId, messageId }, 'message running');
        return { leaseUntil: result.leaseUntil! };
      },
    );
  }

  declareRoute(
    app,
    {
      method: 'POST',
      path: agentRunPath('result'),
      tag: 'Computer agent',
      summary: "A run's result: exit code and the agent's answer",
      access: computerToken,
      params: RunParams,
      body: ResultBody,
      responses: { 200: ResultAnswer },
      errors: [409],
      // The answer is capped at 1M characters; as UTF-8 JSON a character can take up to 6 bytes (\u escapes).
      options: { bodyLimit: 7 * 1024 * 1024 },
      checkFirst: computerFirst(RunParams),
    },
    async ({ params: { computerId, messageId }, body }, request) => {
      const found = pathComputer(request, computerId);
      await deps.computers.seen(found.id);
      const result = await deps.sessions.finish(found.id, messageId, body);
      if (result.outcome === 'not-found') throw notFound(`No message ${messageId} for this computer`);
      if (result.outcome === 'conflict') throw new HttpError(409, `Message ${messageId} is not running on this computer`);
      // The next queued message of this computer may now run.
      deps.signal.notify(found.id);
      request.log.info(
        { computerId, messageId, exitCode: body.exitCode, failed: body.error !== undefined || body.exitCode !== 0 },
        'message finished',
      );
      return { status: result.status ?? 'idle' };
    },
  );
}
