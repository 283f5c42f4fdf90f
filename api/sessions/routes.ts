// Sessions: create one on a computer, send it messages (the computer runs the agent for each), read it
// with its token usage, patch its settings, list sessions and a session's messages. Who may do what:
//   create, send messages   owner, manager, member, on a computer they registered (it runs on their machine),
//                           with their own credential (a key someone else minted for them is refused)
//   read, list, patch       the session's creator, and the organization's owners and managers; but the
//                           settings that change what the agent runs (model, tools) only the creator, with
//                           their own credential, since the next message runs them on the creator's machine
//   guests                  403 everywhere
// Unknown ids, other organizations' ids and sessions the caller may not see are 404; a state that forbids
// the action (a computer whose checks failed, a session not on the computer asked about) is 409. The
// computer agent takes the queued messages through its own routes (agent-routes.ts).
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../common/db/duckdb.ts';
import { forbidden, HttpError, notFound } from '../../common/errors.ts';
import { PEOPLE, type Principal } from '../auth/principal.ts';
import { requirePersonalCredential, visibleComputer } from '../computers/access.ts';
import type { ComputerRow, ComputerStore } from '../computers/store.ts';
import { currentControls } from '../controls/store.ts';
import { declareRoute } from '../openapi/declare.ts';
import {
  CreateMessageBody,
  CreateSessionBody,
  GetQuery,
  ListQuery,
  MESSAGES_PATH,
  MessageCreated,
  MessagePage,
  MessagesQuery,
  PatchSessionBody,
  SESSION_PATH,
  SESSIONS_PATH,
  Session,
  SessionPage,
  SessionParams,
} from './schema.ts';
import type { SessionRecord, SessionStore } from './store.ts';
import type { WorkSignal } from './work-signal.ts';

export interface SessionDeps {
  db: Db;
  computers: ComputerStore;
  sessions: SessionStore;
  signal: WorkSignal;
}

/** Settings that decide what the agent runs on the creator's machine (the rest is bookkeeping: tags, archiving). */
const RUN_SETTINGS = new Set(['model', 'specModeModel', 'enabledToolIds', 'disabledToolIds']);

const isAdmin = (principal: Principal) => principal.role === 'owner' || principal.role === 'manager';
const people = { kind: 'user', roles: PEOPLE } as const;

export function registerSessionRoutes(app: FastifyInstance, deps: SessionDeps): void {
  /** A computer the caller may run work on: their own, with their own credential, and not failed its checks. */
  const runnableComputer = async (principal: Principal, id: string, what: string): Promise<ComputerRow> => {
    const computer = await visibleComputer(deps.computers, principal, id);
    if (computer.user_id !== principal.userId)
      throw forbidden(`Computer ${id} belongs to another user: sessions run only on computers their user registered`);
    requirePersonalCredential(principal, what);
    if (computer.checks_error !== null)
      throw new HttpError(409, `Computer ${id} cannot run sessions: its checks failed (${computer.checks_error})`);
    return computer;
  };

  /** The session, if the caller may see it (its creator, owners and managers); 404 otherwise. */
  const visibleSession = async (principal: Principal, id: string): Promise<SessionRecord> => {
    const session = await deps.sessions.record(principal.orgId, id);
    if (!session || (session.userId !== principal.userId && !isAdmin(principal))) throw notFound(`No session ${id} in this organization`);
    return session;
  };

  declareRoute(
    app,
    {
      method: 'POST',
      path: SESSIONS_PATH,
      tag: 'Sessions',
      summary: 'Create a session on one of your computers',
      action: 'Creating a session',
      access: people,
      body: CreateSessionBody,
      responses: { 201: Session },
      errors: [404, 409],
    },
    async ({ principal, body }, request, reply) => {
      const computer = await runnableComputer(principal, body.computerId, 'Creating a session on a computer');
      const defaults = (await currentControls(deps.db, principal.orgId))?.sessionDefaultSettings ?? {};
      const session = await deps.sessions.create(principal.orgId, principal.userId, computer.id, body.cwd, {
        ...defaults,
        ...body.sessionSettings,
      });
      if (!session) throw notFound(`computer ${computer.id} or its user was removed while the session was being created`);
      request.log.info({ sessionId: session.sessionId, computerId: computer.id }, 'session created');
      reply.status(201);
      return session;
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: SESSIONS_PATH,
      freshness: 'live',
      tag: 'Sessions',
      summary: 'List sessions, newest first (members: their own)',
      action: 'Listing sessions',
      access: people,
      query: ListQuery,
      responses: { 200: SessionPage },
      errors: [404],
    },
    async ({ principal, query }) => {
      if (query.computerId) await visibleComputer(deps.computers, principal, query.computerId);
      const [ms, id] = query.cursor ? query.cursor.split('.') : [];
      const filter = { user: isAdmin(principal) ? null : principal.userId, computer: query.computerId ?? null };
      const page = await deps.sessions.list(principal.orgId, {
        ...filter,
        cursor: ms && id ? { ms: Number(ms), id } : null,
        limit: query.limit ?? 20,
      });
      return {
        sessions: page.sessions,
        pagination: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) },
        counts: await deps.sessions.counts(principal.orgId, filter),
      };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: SESSION_PATH,
      freshness: 'live',
      tag: 'Sessions',
      summary: 'A session with its token usage',
      action: 'Reading a session',
      access: people,
      params: SessionParams,
      query: GetQuery,
      responses: { 200: Session },
      errors: [409],
    },
    async ({ principal, params: { sessionId }, query: { computerId } }) => {
      const session = await visibleSession(principal, sessionId);
      if (computerId !== undefined) {
        // Asked of a particular computer: it must be one the caller can see, and the session must be on it.
        await visibleComputer(deps.computers, principal, computerId);
        if (session.computerId !== computerId)
          throw new HttpError(409, `Session ${sessionId} is not on computer ${computerId} (it is on ${session.computerId})`);
      }
      return (await deps.sessions.view(principal.orgId, sessionId))!;
    },
  );

  declareRoute(
    app,
    {
      method: 'PATCH',
      path: SESSION_PATH,
      tag: 'Sessions',
      summary: "Change a session's settings (null removes a field)",
      action: 'Changing a session',
      access: people,
      params: SessionParams,
      body: PatchSessionBody,
      bodyOptional: true,
      responses: { 200: Session },
    },
    async ({ principal, params: { sessionId }, body }) => {
      const session = await visibleSession(principal, sessionId);
      const changesRun = Object.keys(body.sessionSettings ?? {}).filter((key) => RUN_SETTINGS.has(key));
      if (changesRun.length) {
        if (session.userId !== principal.userId)
          throw forbidden(`${changesRun.join(', ')} of session ${sessionId} can be changed only by the user whose computer runs it`);
        requirePersonalCredential(principal, `Changing ${changesRun.join(', ')} of a session`);
      }
      if (body.sessionSettings) await deps.sessions.patch(principal.orgId, sessionId, body.sessionSettings);
      return (await deps.sessions.view(principal.orgId, sessionId))!;
    },
  );

  declareRoute(
    app,
    {
      method: 'POST',
      path: MESSAGES_PATH,
      tag: 'Sessions',
      summary: 'Send a message: the computer runs the agent with it',
      action: 'Sending a message',
      access: people,
      params: SessionParams,
      body: CreateMessageBody,
      responses: { 200: MessageCreated },
      errors: [403, 409],
      options: { bodyLimit: 16 * 1024 * 1024 },
    },
    async ({ principal, params: { sessionId }, body }, request) => {
      const session = await visibleSession(principal, sessionId);
      if (session.userId !== principal.userId)
        throw forbidden(`Only the user who created session ${sessionId} sends it messages (they run on that user's computer)`);
      const computer = await runnableComputer(principal, body.computerId ?? session.computerId, 'Sending a message to a computer');
      const created = await deps.sessions.addMessage(principal.orgId, session, computer.id, body);
      if (!created) throw notFound(`session ${sessionId} was removed while the message was being sent`);
      deps.signal.notify(computer.id);
      // Never the text: prompts stay out of the logs.
      request.log.info({ sessionId, messageId: created.messageId, computerId: computer.id, status: created.status }, 'message queued');
      return created;
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: MESSAGES_PATH,
      freshness: 'live',
      tag: 'Sessions',
      summary: "A session's messages, oldest first",
      action: 'Reading messages',
      access: people,
      params: SessionParams,
      query: MessagesQuery,
      responses: { 200: MessagePage },
    },
    async ({ principal, params: { sessionId }, query }) => {
      await visibleSession(principal, sessionId);
      const page = await deps.sessions.messages(sessionId, query.cursor ? Number(query.cursor) : null, query.limit ?? 20);
      return {
        messages: page.messages,
        pagination: { hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) },
      };
    },
  );
}
