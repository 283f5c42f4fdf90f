// Enrollment by device code (docs/install-and-rollout.md, "Enroll without a key"): install.sh run with
// no key asks POST /api/v0/auth/device for a device code and a short user code, prints the code and the
// dashboard's /device page, and polls POST /api/v0/auth/device/token; a person signed in to the dashboard
// (key or OIDC) opens the page and approves that code; the next poll receives a collector key of that
// person, minted then and shown once. A code expires after 10 minutes and is used once; one address asks
// for at most STARTS_PER_ADDRESS codes per window, a machine polling sooner than its interval is told
// slow_down, a person trying unknown codes is stopped after WRONG_CODES_PER_PERSON. An approval never
// grants more than a collector key, and one approved with a key someone else minted for the approver ends
// with that key (docs/keys.md). A code becomes its approver's organization's: another organization's
// people get 404 for it.
import type { FastifyInstance } from 'fastify';
import { badRequest, HttpError, notFound } from '../../common/errors.ts';
import type { AccountStore } from '../accounts/store.ts';
import type { Principal } from '../auth/principal.ts';
import { RetryLater } from '../ingest/limits.ts';
import { baseUrl } from '../install/routes.ts';
import { keyView } from '../keys/store.ts';
import { declareRoute } from '../openapi/declare.ts';
import { newDeviceCode, newUserCode, normalizeUserCode, pollVerdict, showUserCode } from './codes.ts';
import { WindowLimiter } from './limits.ts';
import {
  CODE_TTL_MS,
  DEVICE_PAGE,
  DEVICE_REQUEST_PATH,
  DEVICE_START_PATH,
  DEVICE_TOKEN_PATH,
  DecisionBody,
  DeviceRequest,
  DeviceStart,
  LIMIT_WINDOW_MS,
  POLL_INTERVAL_S,
  RequestParams,
  SLOW_DOWN_STEP_S,
  STARTS_PER_ADDRESS,
  StartBody,
  TokenAnswer,
  TokenBody,
  WRONG_CODES_PER_PERSON,
} from './schema.ts';
import type { DeviceCodeRow, DeviceCodeStore } from './store.ts';

export interface DeviceRouteDeps {
  accounts: AccountStore;
  codes: DeviceCodeStore;
  /** The server's clock (epoch ms). */
  now: () => number;
  /** The URL people reach this server at (`serve --public-url`); else the request's Host. */
  publicUrl?: string | undefined;
}

const iso = (ms: number) => new Date(ms).toISOString();

export function registerDeviceRoutes(app: FastifyInstance, deps: DeviceRouteDeps): void {
  const starts = new WindowLimiter(STARTS_PER_ADDRESS, LIMIT_WINDOW_MS, deps.now);
  const guesses = new WindowLimiter(WRONG_CODES_PER_PERSON, LIMIT_WINDOW_MS, deps.now);

  /**
   * The code a person names, if they may see it: pending and unexpired (anyone signed in may approve it),
   * or decided by someone of their own organization. Anything else is a 404, counted against them; once
   * they reach the limit every code is a 429 until the window ends, a right guess as much as a wrong one.
   */
  const visible = async (principal: Principal, typed: string): Promise<{ code: string; row: DeviceCodeRow }> => {
    const person = `${principal.orgId}/${principal.userId}`;
    const stopped = guesses.blocked(person);
    if (stopped !== undefined) throw new RetryLater(429, `Too many unknown codes tried; try again in ${stopped} s`, stopped);
    const code = normalizeUserCode(typed);
    const row = code ? await deps.codes.byUserCode(code) : undefined;
    const now = deps.now();
    const mine = row && (row.state === 'pending' ? row.expires_ms > now && row.redeemed_ms === null : row.org_id === principal.orgId);
    if (code && row && mine) return { code, row };
    const wait = guesses.take(person);
    if (wait !== undefined) throw new RetryLater(429, `Too many unknown codes tried; try again in ${wait} s`, wait);
    throw notFound(
      code
        ? `No pending sign-in with the code ${showUserCode(code)}: it expired (codes last 10 minutes), was already used, or was mistyped. Run the installer again for a new code.`
        : `${typed.slice(0, 32)} is not a code: it has 8 letters, as BCDF-GHJK`,
    );
  };

  const view = (code: string, row: DeviceCodeRow): DeviceRequest => ({
    userCode: showUserCode(code),
    machineName: row.machine_name,
    requestedFrom: row.requested_from,
    createdAt: iso(Number(row.created_ms)),
    expiresAt: iso(Number(row.expires_ms)),
    state: row.state,
    decidedBy: row.decided_by ?? null,
  });

  declareRoute(
    app,
    {
      method: 'POST',
      path: DEVICE_START_PATH,
      tag: 'Device sign-in',
      summary: 'Start enrolling a machine without a key: a device code to poll with and a user code to approve in the dashboard',
      description: `RFC 8628's device authorization request. Both codes expire in ${CODE_TTL_MS / 60_000} minutes and are stored only as hashes. At most ${STARTS_PER_ADDRESS} codes per address per ${LIMIT_WINDOW_MS / 60_000} minutes (429 with Retry-After).`,
      access: { kind: 'none' },
      body: StartBody,
      bodyOptional: true,
      responses: { 201: DeviceStart },
      errors: [429],
      options: { bodyLimit: 4 * 1024 },
    },
    async ({ body }, request, reply) => {
      const wait = starts.take(request.ip);
      if (wait !== undefined) throw new RetryLater(429, `Too many device sign-ins from ${request.ip}; try again in ${wait} s`, wait);
      const deviceCode = newDeviceCode();
      const now = deps.now();
      const userCode = await deps.codes.issue({
        deviceCode,
        userCode: () => newUserCode(),
        machineName: body.name ?? null,
        requestedFrom: request.ip,
        nowMs: now,
        ttlMs: CODE_TTL_MS,
        intervalS: POLL_INTERVAL_S,
      });
      const page = `${baseUrl(deps.publicUrl, request.host, request.protocol)}${DEVICE_PAGE}`;
      request.log.info({ from: request.ip, machine: body.name ?? null }, 'device code issued');
      reply.status(201).header('cache-control', 'no-store');
      return {
        deviceCode,
        userCode: showUserCode(userCode),
        verificationUri: page,
        verificationUriComplete: `${page}?code=${showUserCode(userCode)}`,
        expiresIn: CODE_TTL_MS / 1000,
        interval: POLL_INTERVAL_S,
      };
    },
  );

  declareRoute(
    app,
    {
      method: 'POST',
      path: DEVICE_TOKEN_PATH,
      tag: 'Device sign-in',
      summary: "The machine's poll: pending, slow_down, denied, expired, or the collector key once approved",
      description: `RFC 8628's token request, its states in "status". Polling sooner than "interval" seconds after the last poll answers slow_down with an interval ${SLOW_DOWN_STEP_S} s longer. The key is a collector key of the person who approved, minted at this poll and shown once; the code is then used (400 at the next poll). 400 for an unknown device code.`,
      access: { kind: 'none' },
      body: TokenBody,
      responses: { 200: TokenAnswer },
      options: { bodyLimit: 4 * 1024 },
    },
    async ({ body: { deviceCode } }, request, reply): Promise<TokenAnswer> => {
      void reply.header('cache-control', 'no-store');
      const row = await deps.codes.byDeviceCode(deviceCode);
      if (!row) throw badRequest('Unknown device code: run the installer again for a new one');
      if (row.redeemed_ms !== null)
        throw badRequest('This device code was already used: a code gives one key. Run the installer again for a new one');
      const now = deps.now();
      if (Number(row.expires_ms) <= now) return { status: 'expired_token' };
      const poll = pollVerdict(row.last_poll_ms === null ? null : Number(row.last_poll_ms), row.interval_s, now, SLOW_DOWN_STEP_S);
      await deps.codes.recordPoll(deviceCode, now, poll.intervalS);
      if (poll.slowDown) return { status: 'slow_down', interval: poll.intervalS };
      if (row.state === 'pending') return { status: 'authorization_pending', interval: poll.intervalS };
      if (row.state === 'denied') return { status: 'access_denied' };
      const user = row.org_id && row.user_id ? await deps.accounts.getUser(row.org_id, row.user_id) : undefined;
      if (!user || (await deps.accounts.deactivated(user.org_id, user.id))) return { status: 'access_denied' };
      // Approved with a key someone else minted for the approver (its minter holds it too): the key minted
      // here ends with that one, and none is minted once it has ended.
      const heldWithEnded = async () =>
        row.approver_key !== null && (await deps.accounts.getKey(user.org_id, row.approver_key))?.revoked_at !== null;
      if (await heldWithEnded()) return { status: 'access_denied' };
      if (!(await deps.codes.redeem(deviceCode, now)))
        throw badRequest('This device code was already used: a code gives one key. Run the installer again for a new one');
      const { key, info } = await deps.accounts.createKey(
        user,
        row.machine_name ?? 'device sign-in',
        { userId: user.id, credential: row.approver_credential ?? 'delegated' },
        { scope: 'collector', mintedWith: row.approver_key ?? undefined },
      );
      await deps.codes.recordKey(deviceCode, info.id);
      // That key revoked while this one was minted: its revocation did not see this key, so it ends now.
      if (await heldWithEnded()) {
        await deps.accounts.revokeKey(user.org_id, info.id);
        return { status: 'access_denied' };
      }
      request.log.info({ user: user.id, key: info.id, machine: row.machine_name }, 'device sign-in key issued');
      return { status: 'approved', apiKey: key, key: keyView(info) };
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: DEVICE_REQUEST_PATH,
      freshness: 'credential',
      tag: 'Device sign-in',
      summary: 'A pending device sign-in, for the approval page: the machine’s name, address and times',
      description: `404 when the code is unknown, expired, used, or decided by another organization; after ${WRONG_CODES_PER_PERSON} such codes in ${LIMIT_WINDOW_MS / 60_000} minutes, 429.`,
      access: { kind: 'user' },
      params: RequestParams,
      responses: { 200: DeviceRequest },
      errors: [429],
    },
    async ({ principal, params }) => {
      const { code, row } = await visible(principal, params.userCode);
      return view(code, row);
    },
  );

  declareRoute(
    app,
    {
      method: 'POST',
      path: DEVICE_REQUEST_PATH,
      tag: 'Device sign-in',
      summary: 'Approve or deny a device sign-in: approved, the machine receives a collector key of the person signed in',
      description:
        'The dashboard session needs its header (as every change it makes). 409 when the code was already decided; 404 as for GET.',
      access: { kind: 'user' },
      params: RequestParams,
      body: DecisionBody,
      responses: { 200: DeviceRequest },
      errors: [409, 429],
    },
    async ({ principal, params, body }, request) => {
      const { code, row } = await visible(principal, params.userCode);
      const state = body.decision === 'approve' ? 'approved' : 'denied';
      const now = deps.now();
      const decided = await deps.codes.decide(
        code,
        { state, orgId: principal.orgId, userId: principal.userId, credential: principal.credential, heldWith: principal.heldWith },
        now,
      );
      if (!decided)
        throw new HttpError(409, `The code ${showUserCode(code)} was already ${row.state === 'pending' ? 'decided' : row.state}`);
      request.log.info({ user: principal.userId, machine: row.machine_name, decision: state }, 'device sign-in decided');
      return view(code, (await deps.codes.byUserCode(code))!);
    },
  );
}
