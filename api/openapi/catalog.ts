// Every route of the public API with the zod schemas its handler validates with and the schemas of its
// answers. A route added to the server without an entry here fails test/integration/openapi.integration.test.ts.
import { z } from 'zod';
import { HelloBody, LeaseAnswer, PollAnswer, PollQuery, RegisterBody, ResultBody } from '../../common/computer-protocol.ts';
import { ReadinessList, ReadinessReport, ReadinessReportInput } from '../../common/readiness.ts';
import { IngestResponse, WireRecord } from '../../common/wire.ts';
import { CreatedKey, CreatedUser, KeyList, RevokedKey, WhoAmI } from '../accounts/schema.ts';
import { ANALYTICS_QUERY } from '../analytics/schema.ts';
import { SESSION_COOKIE } from '../auth/authenticator.ts';
import type { Role } from '../auth/principal.ts';
import { ADMIN_ROLES } from '../auth/principal.ts';
import { ALERTS_PATH, AlertList, AlertsQuery, BUDGETS_PATH, BudgetList, BudgetsBody } from '../budgets/schema.ts';
import { ComputerPage, ComputerSchema, RegisteredComputer, ResultAnswer } from '../computers/schema.ts';
import { ControlChange, ControlHistory, NoControls } from '../controls/schema.ts';
import { CLIENT_ROUTES } from '../dashboard/static.ts';
import { BatchRunList, BatchRunsQuery } from '../health/schema.ts';
import { INSTALL_FILES, InstallFileParams } from '../install/schema.ts';
import { MACHINE_KEYS_PATH } from '../machines/routes.ts';
import { MachineList } from '../machines/schema.ts';
import { OIDC_CALLBACK_PATH, OIDC_CONFIG_PATH } from '../oidc/routes.ts';
import { OrgParams as OidcOrgParams, ProviderAnswer, ProviderBody, SignInOptions } from '../oidc/schema.ts';
import { NoQuery } from '../query.ts';
import { CreateKeyBody, CreateUserBody, KeyParams, RemoveQuery, UserParams } from '../routes/accounts.ts';
import { BatchBody, BatchReportAnswer } from '../routes/batch.ts';
import { ListQuery as ComputerListQuery, IdParams, RunParams } from '../routes/computers.ts';
import { HistoryQuery, Body as PutControlsBody } from '../routes/controls.ts';
import {
  ENFORCEMENT_PATH,
  EnforcementAnswer,
  EnforcementBody,
  Entry,
  LIMITS_PATH,
  LimitStatus,
  LimitsBody,
  LimitsUpdate,
} from '../routes/limits.ts';
import { PageQuery, UserList } from '../routes/organization.ts';
import { READINESS_PATHS, ListQuery as ReadinessListQuery } from '../routes/readiness.ts';
import { GetQuery, MessagesQuery, ListQuery as SessionListQuery, SessionParams } from '../routes/sessions.ts';
import { SCIM_TOKENS_PATH } from '../scim/routes.ts';
import {
  CreatedScimToken,
  RevokedScimToken,
  TokenBody as ScimTokenBody,
  ScimTokenList,
  TokenParams as ScimTokenParams,
} from '../scim/schema.ts';
import {
  CreateMessageBody,
  CreateSessionBody,
  MessageCreated,
  MessagePage,
  PatchSessionBody,
  Session,
  SessionPage,
} from '../sessions/schema.ts';
import { SESSION_PATH } from '../signin/routes.ts';
import { Me, SignInBody, SignInState } from '../signin/schema.ts';
import { UsageParams, UserUsage } from '../usage/schema.ts';
import { RemovedUser, UserListingList } from '../users/schema.ts';
import { DASHBOARD_HEADER, type RouteDoc } from './registry.ts';

const PEOPLE: readonly Role[] = ['owner', 'manager', 'member'];
const user = (roles?: readonly Role[]) => ({ kind: 'user' as const, ...(roles ? { roles } : {}) });
/** A route a collector key may call too (its `config.collectorKey`). */
const userOrCollector = (roles?: readonly Role[]) => ({ ...user(roles), collectorKey: true as const });
const computer = { kind: 'computer' as const };

const readiness = (path: string): RouteDoc[] => [
  {
    method: 'GET',
    path,
    tag: 'Readiness',
    summary: 'List readiness reports, newest first',
    access: user(PEOPLE),
    query: ReadinessListQuery,
    responses: { 200: ReadinessList },
  },
  {
    method: 'POST',
    path,
    tag: 'Readiness',
    summary: 'Upload a readiness report',
    access: user(PEOPLE),
    body: ReadinessReportInput,
    responses: { 201: z.strictObject({ report: ReadinessReport, repoId: z.string() }) },
    errors: [409],
  },
];

const ndjsonBody = {
  type: 'string',
  description: 'One wire record (see the JSON body) per line; Content-Encoding: gzip is accepted.',
};

const OWNERS: readonly Role[] = ['owner'];

const htmlPage = (description: string) => ({ contentType: 'text/html; charset=utf-8', description, schema: { type: 'string' } });

export const CATALOG: RouteDoc[] = [
  {
    method: 'PUT',
    path: OIDC_CONFIG_PATH,
    tag: 'Sign-in with the identity provider',
    summary: "Set the organization's OpenID Connect provider (docs/oidc.md)",
    description:
      'The issuer must be https and resolve to public addresses unless the server runs with --allow-private-oidc (400 otherwise). The client secret is stored sealed and never answered.',
    access: user(OWNERS),
    body: ProviderBody,
    responses: { 200: ProviderAnswer },
  },
  {
    method: 'GET',
    path: OIDC_CONFIG_PATH,
    tag: 'Sign-in with the identity provider',
    summary: "The organization's OpenID Connect provider, without its secret (provider: null when none)",
    access: user(OWNERS),
    responses: { 200: ProviderAnswer },
  },
  {
    method: 'DELETE',
    path: OIDC_CONFIG_PATH,
    tag: 'Sign-in with the identity provider',
    summary: 'Stop signing in with the identity provider (sessions already given last until they end)',
    access: user(OWNERS),
    responses: { 200: ProviderAnswer },
  },
  {
    method: 'GET',
    path: '/auth/oidc/:orgId',
    tag: 'Sign-in with the identity provider',
    summary: 'Whether an organization signs in with an identity provider (the sign-in page asks, to offer the button)',
    access: { kind: 'none' },
    params: OidcOrgParams,
    responses: { 200: SignInOptions },
  },
  {
    method: 'GET',
    path: '/auth/oidc/:orgId/login',
    tag: 'Sign-in with the identity provider',
    summary: "Start signing in: a redirect (302) to the organization's provider, with PKCE, state and nonce",
    description:
      'Sets a short-lived HttpOnly cookie binding the state to this browser. 404 (an HTML page) when the organization has no provider; 502 when the provider cannot be reached.',
    access: { kind: 'none' },
    params: OidcOrgParams,
    responses: {
      302: { description: "Redirect to the provider's authorization endpoint" },
      404: htmlPage('The organization has no identity provider'),
      502: htmlPage('The provider cannot be reached'),
    },
  },
  {
    method: 'GET',
    path: OIDC_CALLBACK_PATH,
    tag: 'Sign-in with the identity provider',
    summary: "The provider's redirect back: checks state, PKCE and the ID token, then sets the dashboard's session cookie",
    description:
      'A page that continues to the dashboard, or a page saying why the sign-in was refused: 400 (state missing, altered, expired or used), 401 (ID token refused: issuer, audience, expiry, signature, nonce), 403 (no verified e-mail, not a user and provisioning off, deactivated).',
    access: { kind: 'none' },
    responses: {
      200: htmlPage('Signed in: continues to the dashboard'),
      400: htmlPage('The state is missing, altered, expired or used'),
      401: htmlPage('The ID token was refused'),
      403: htmlPage('The person may not sign in'),
    },
  },
  {
    method: 'POST',
    path: SCIM_TOKENS_PATH,
    tag: 'SCIM',
    summary: 'Mint a SCIM token for a directory (Okta, Microsoft Entra ID); the token is in this answer only',
    description:
      'The token (amscim_…) is accepted only on /scim/v2/* (docs/scim.md), and an API key is never accepted there. Stored as a SHA-256 hash.',
    access: user(OWNERS),
    body: ScimTokenBody,
    bodyOptional: true,
    responses: { 201: CreatedScimToken },
  },
  {
    method: 'GET',
    path: SCIM_TOKENS_PATH,
    tag: 'SCIM',
    summary: "The organization's SCIM tokens (never the tokens themselves)",
    access: user(OWNERS),
    responses: { 200: ScimTokenList },
  },
  {
    method: 'DELETE',
    path: `${SCIM_TOKENS_PATH}/:tokenId`,
    tag: 'SCIM',
    summary: 'Revoke a SCIM token; the directory using it is refused at once',
    access: user(OWNERS),
    params: ScimTokenParams,
    responses: { 200: RevokedScimToken },
  },
  {
    method: 'GET',
    path: '/healthz',
    tag: 'Operations',
    summary: 'Liveness: the server answers and its database responds',
    access: { kind: 'none' },
    responses: { 200: z.strictObject({ status: z.literal('ok') }) },
  },
  {
    method: 'GET',
    path: '/openapi.json',
    tag: 'Operations',
    summary: 'This document',
    access: { kind: 'none' },
    responses: { 200: { contentType: 'application/json', description: 'OpenAPI 3.1', schema: { type: 'object' } } },
  },
  {
    method: 'GET',
    path: '/metrics',
    tag: 'Operations',
    summary: 'Server metrics in the Prometheus text format',
    description: 'Off (404) unless the server runs with --metrics-token or AGENTMETER_METRICS_TOKEN; API keys never grant it.',
    access: { kind: 'metrics' },
    responses: {
      200: { contentType: 'text/plain; version=0.0.4', description: 'Prometheus exposition format', schema: { type: 'string' } },
    },
    errors: [404],
  },
  {
    method: 'GET',
    path: '/install.sh',
    tag: 'Install',
    summary: "The installer of a developer's machine: curl -fsSL SERVER/install.sh | sh -s -- --key am_…",
    description:
      "POSIX sh with this server's URL (serve --public-url, else the Host asked with), the version and the SHA-256 sums of the files it downloads filled in. ETag is the script's SHA-256; If-None-Match answers 304. 503 when the laptop bundle is not built on the server.",
    access: { kind: 'none' },
    responses: { 200: { contentType: 'text/x-shellscript; charset=utf-8', description: 'The installer', schema: { type: 'string' } } },
    // 400: a Host header that is not a host name (it goes into the script).
    errors: [400, 503],
  },
  {
    method: 'GET',
    path: '/install/:version/:file',
    tag: 'Install',
    summary: `A file the installer downloads: ${INSTALL_FILES.join(' or ')}`,
    description:
      "version is the server's (the one /install.sh names); another version or file is a 404 saying which there are. ETag is the file's SHA-256 (the installer checks the sum it was given); If-None-Match answers 304. 503 when the laptop bundle is not built on the server.",
    access: { kind: 'none' },
    params: InstallFileParams,
    responses: {
      200: {
        contentType: 'text/plain; charset=utf-8',
        description: 'The file as built, to be saved (never run by a browser)',
        schema: { type: 'string' },
      },
    },
    errors: [503],
  },
  {
    method: 'POST',
    path: '/api/v1/ingest/events',
    tag: 'Ingest',
    summary: 'Store a batch of events, token usage and assistant messages (what the collector sends)',
    description:
      'Bad records are rejected one by one with their index and reason; the good ones are stored. The user and organization come from the credential. At most 10,000 records and 4 MiB as sent; a gzip body inflating past 16 MiB is refused (413) as soon as it does. 429 when the credential’s user already has 4 requests in progress (over all their keys), 503 when the server is busy; both carry Retry-After (docs/ingest-limits.md).',
    access: userOrCollector(),
    bodyContent: {
      'application/x-ndjson': { schema: ndjsonBody },
      'application/json': { schema: z.union([z.array(WireRecord), z.strictObject({ records: z.array(WireRecord) })]) },
    },
    headers: [{ name: 'Content-Encoding', description: 'gzip or identity', schema: { type: 'string', enum: ['gzip', 'identity'] } }],
    responses: { 200: IngestResponse },
    errors: [429, 503],
  },
  {
    method: 'POST',
    path: '/api/v0/admin/users',
    tag: 'Admin',
    summary: 'Add a user and their first API key',
    description:
      'Owners add any role; managers add members and guests. Needs a personal API key: the invitation key it mints would outlive a JWT or a dashboard session (403).',
    access: user(),
    body: CreateUserBody,
    responses: { 201: CreatedUser },
    errors: [403, 409],
  },
  {
    method: 'GET',
    path: '/api/v0/admin/users',
    tag: 'Admin',
    summary: "The organization's users with their roles, last sign-in and number of active keys",
    access: user(ADMIN_ROLES),
    query: NoQuery,
    responses: { 200: UserListingList },
  },
  {
    method: 'DELETE',
    path: '/api/v0/admin/users/:userId',
    tag: 'Admin',
    summary: 'Remove a user (userId is a user id or an e-mail address): their keys and computers stop working',
    description:
      'erase=true also deletes what their agents sent, their sessions and computers, and rebuilds the days it was on before answering. 409 when the user is the last owner.',
    access: user(['owner']),
    params: UserParams,
    query: RemoveQuery,
    responses: { 200: RemovedUser },
    errors: [409],
  },
  {
    method: 'GET',
    path: '/api/v0/admin/users/:userId/keys',
    tag: 'Admin',
    summary: "List a user's API keys (userId is a user id, an e-mail address, or me)",
    access: user(),
    params: UserParams,
    responses: { 200: KeyList },
    errors: [403],
  },
  {
    method: 'POST',
    path: '/api/v0/admin/users/:userId/keys',
    tag: 'Admin',
    summary: 'Create an API key for a user (userId is a user id, an e-mail address, or me)',
    description:
      'scope personal (the default) needs a personal API key as the credential, and the new key is revoked with that key; ' +
      'a JWT or a dashboard session mints collector keys only (403 otherwise), which last until revoked. A collector key mints nothing.',
    access: user(),
    params: UserParams,
    body: CreateKeyBody,
    bodyOptional: true,
    responses: { 201: CreatedKey },
    errors: [403],
  },
  {
    method: 'DELETE',
    path: '/api/v0/admin/keys/:keyId',
    tag: 'Admin',
    summary: 'Revoke an API key',
    description:
      'The personal keys minted with it are revoked with it (collector keys stay). The machines page revokes collector keys here.',
    access: user(),
    params: KeyParams,
    responses: { 200: RevokedKey },
    errors: [403],
  },
  {
    method: 'GET',
    path: '/api/v0/admin/whoami',
    tag: 'Admin',
    summary: 'The user, organization and role of the credential',
    access: user(),
    responses: { 200: WhoAmI },
  },
  {
    method: 'POST',
    path: '/api/v0/admin/batch',
    tag: 'Admin',
    summary: "Run the daily batch now for the caller's organization (its new data, or a range of days)",
    description:
      "Rebuilds the caller's organization alone and clears only its cached answers. A range is clamped to the days that can hold its data (not before its first record nor 2026-01-14, not after yesterday). 409 while a batch of the organization is queued or running.",
    access: user(ADMIN_ROLES),
    body: BatchBody,
    bodyOptional: true,
    responses: { 200: BatchReportAnswer },
    errors: [409],
  },
  {
    method: 'GET',
    path: '/api/v0/admin/batch/runs',
    tag: 'Admin',
    summary: 'The latest daily-batch runs this organization may see, newest first, with its own figures',
    description:
      'Its own runs (through the API, or after an erasure) and the runs of every organization (schedule, server, cli), each with this organization’s days rebuilt, newest record covered (watermark) and unpriced models only.',
    access: user(ADMIN_ROLES),
    query: BatchRunsQuery,
    responses: { 200: BatchRunList },
  },
  {
    method: 'POST',
    path: SESSION_PATH,
    tag: 'Dashboard sign-in',
    summary: 'Sign in to the dashboard: an API key or a JWT in the JSON body, a session cookie in the answer',
    description: `The credential goes in the body (never the URL); the answer sets the ${SESSION_COOKIE} cookie (HttpOnly, SameSite=Strict) and names the principal. The "${DASHBOARD_HEADER}: 1" header is required (403 without it), so another site cannot sign a visitor in. 401 when the credential is unknown, revoked or expired; 403 for a collector key.`,
    access: { kind: 'signin' },
    headers: [{ name: DASHBOARD_HEADER, description: 'Must be 1', schema: { type: 'string', enum: ['1'] } }],
    body: SignInBody,
    responses: { 201: Me },
  },
  {
    method: 'GET',
    path: SESSION_PATH,
    tag: 'Dashboard sign-in',
    summary: 'Whether this browser is signed in to the dashboard (always 200)',
    access: { kind: 'session' },
    responses: { 200: SignInState },
  },
  {
    method: 'DELETE',
    path: SESSION_PATH,
    tag: 'Dashboard sign-in',
    summary: 'Sign out of the dashboard: the session ends and the cookie is cleared',
    description: `With a session cookie, the "${DASHBOARD_HEADER}: 1" header is required (403 without it).`,
    access: { kind: 'session' },
    headers: [{ name: DASHBOARD_HEADER, description: 'Must be 1 when a session cookie is sent', schema: { type: 'string', enum: ['1'] } }],
    responses: { 204: { description: 'Signed out (also when there was no session)' } },
    errors: [403],
  },
  {
    method: 'GET',
    path: '/api/v0/auth/me',
    tag: 'Dashboard sign-in',
    summary: 'The principal of the credential or session cookie, with the session’s end when signed in with the cookie',
    access: userOrCollector(),
    responses: { 200: Me },
  },
  {
    method: 'GET',
    path: '/api/v0/usage/users/:userId',
    tag: 'Usage',
    summary: "One person's daily usage records (userId: a user id, or me); members: only their own",
    description: 'The records of /api/v1/analytics/users for one user. Another user’s id answers 404 to a member and to a collector key.',
    access: userOrCollector(PEOPLE),
    params: UsageParams,
    query: ANALYTICS_QUERY.productivity,
    responses: { 200: UserUsage },
  },
  {
    method: 'GET',
    path: '/api/v0/machines',
    tag: 'Machines',
    summary: 'Machines that shipped events, with their latest event and delivery (members: their own)',
    access: user(PEOPLE),
    query: NoQuery,
    responses: { 200: MachineList },
  },
  {
    method: 'GET',
    path: MACHINE_KEYS_PATH,
    tag: 'Machines',
    summary: 'Collector keys with the machine each delivers from (members: their own); revoke one with DELETE /api/v0/admin/keys/{keyId}',
    description:
      'A collector key is listed under a machine from its first delivery (the collector’s x-agentmeter-machine header); null before.',
    access: user(PEOPLE),
    query: NoQuery,
    responses: { 200: KeyList },
  },
  ...READINESS_PATHS.flatMap(readiness),
  {
    method: 'GET',
    path: '/api/v0/organization/users',
    tag: 'Organization',
    summary: "The organization's users (a member sees only themself)",
    access: user(PEOPLE),
    query: PageQuery,
    responses: { 200: UserList },
  },
  {
    method: 'GET',
    path: '/api/v0/organization/enterprise-controls',
    tag: 'Organization',
    summary: 'The current enterprise controls (secrets masked)',
    access: user(ADMIN_ROLES),
    responses: { 200: z.union([ControlChange, NoControls]) },
  },
  {
    method: 'PUT',
    path: '/api/v0/organization/enterprise-controls',
    tag: 'Organization',
    summary: 'Store a new revision of the enterprise controls',
    description: 'A masked secret sent back unchanged keeps the stored one.',
    access: user(['owner']),
    body: PutControlsBody,
    responses: { 200: ControlChange },
  },
  {
    method: 'GET',
    path: '/api/v0/organization/enterprise-controls/history',
    tag: 'Organization',
    summary: 'Revisions of the enterprise controls, newest first',
    access: user(ADMIN_ROLES),
    query: HistoryQuery,
    responses: { 200: ControlHistory },
  },
  {
    method: 'GET',
    path: LIMITS_PATH,
    tag: 'Credit limits',
    summary: "Each user's monthly credit limit and the credits used this month (a member: their own)",
    description: 'A collector key reads only its own user’s entry, whatever the role (what the collector enforces).',
    access: userOrCollector(PEOPLE),
    responses: { 200: LimitStatus },
  },
  {
    method: 'PUT',
    path: LIMITS_PATH,
    tag: 'Credit limits',
    summary: 'Set monthly credit limits (1-100 entries, each applied or refused on its own)',
    description:
      'A bad entry is reported in `errors` with its e-mail, not as a 400: the route checks each entry with the entry schema. ' +
      "An owner sets anyone's limit; a manager only members' and guests' (an owner's or manager's entry is an error).",
    access: user(ADMIN_ROLES),
    // The route parses the envelope with LimitsBody and each entry with Entry, one by one.
    body: LimitsBody.extend({ users: Entry.array().min(1).max(100) }),
    responses: { 200: LimitsUpdate },
  },
  {
    method: 'PUT',
    path: ENFORCEMENT_PATH,
    tag: 'Credit limits',
    summary: 'Turn the enforcement of credit limits on or off',
    access: user(['owner']),
    body: EnforcementBody,
    responses: { 200: EnforcementAnswer },
  },
  {
    method: 'GET',
    path: BUDGETS_PATH,
    tag: 'Budgets',
    summary: "The organization's budgets, each with its credits this UTC month (today's included) and their share",
    description: 'Webhook secrets are never answered (`secret: "set"`); a Slack URL is shown without its path.',
    access: user(ADMIN_ROLES),
    responses: { 200: BudgetList },
  },
  {
    method: 'PUT',
    path: BUDGETS_PATH,
    tag: 'Budgets',
    summary: 'Replace the whole list of budgets (organization or user; team budgets are refused until teams exist)',
    description:
      'A budget counts Standard Credits per UTC month. Each threshold (percent, default 50, 75, 90, 100) fires one alert per month, delivered to every destination: `webhook` POSTs the `budget.threshold` event signed with `X-Agentmeter-Signature: sha256=<HMAC-SHA256 of the body>` and `X-Agentmeter-Event-Id` (the alert id, an idempotency key); `slack` POSTs `{"text": …}`. Destinations resolving to private, loopback or link-local addresses are refused (400) unless the server runs with `--allow-private-webhooks`; redirects are not followed. Answers as GET.',
    access: user(['owner']),
    body: BudgetsBody,
    responses: { 200: BudgetList },
  },
  {
    method: 'GET',
    path: ALERTS_PATH,
    tag: 'Budgets',
    summary: 'Fired budget alerts, newest first, with the state of each delivery',
    access: user(ADMIN_ROLES),
    query: AlertsQuery,
    responses: { 200: AlertList },
  },
  {
    method: 'POST',
    path: '/api/v0/computers',
    tag: 'Computers',
    summary: 'Register a computer (bring your own machine)',
    access: user(PEOPLE),
    body: RegisterBody,
    responses: { 201: RegisteredComputer },
  },
  {
    method: 'GET',
    path: '/api/v0/computers',
    tag: 'Computers',
    summary: 'List computers (owners and managers: all; members: their own)',
    access: user(PEOPLE),
    query: ComputerListQuery,
    responses: { 200: ComputerPage },
  },
  {
    method: 'GET',
    path: '/api/v0/computers/:computerId',
    tag: 'Computers',
    summary: 'A computer and its status',
    access: user(PEOPLE),
    params: IdParams,
    responses: { 200: ComputerSchema },
  },
  {
    method: 'POST',
    path: '/api/v0/computers/:computerId/agent/hello',
    tag: 'Computer agent',
    summary: 'The computer agent starts: its start-up checks',
    access: computer,
    params: IdParams,
    body: HelloBody,
    responses: { 200: ComputerSchema },
  },
  {
    method: 'GET',
    path: '/api/v0/computers/:computerId/agent/work',
    tag: 'Computer agent',
    summary: 'Long-poll for the next message to run',
    access: computer,
    params: IdParams,
    query: PollQuery,
    responses: { 200: PollAnswer },
    errors: [409],
  },
  ...(['start', 'heartbeat'] as const).map(
    (action): RouteDoc => ({
      method: 'POST',
      path: `/api/v0/computers/:computerId/agent/messages/:messageId/${action}`,
      tag: 'Computer agent',
      summary: action === 'start' ? 'A claimed message started running' : "Renew a running message's lease",
      access: computer,
      params: RunParams,
      responses: { 200: LeaseAnswer },
      errors: [409],
    }),
  ),
  {
    method: 'POST',
    path: '/api/v0/computers/:computerId/agent/messages/:messageId/result',
    tag: 'Computer agent',
    summary: "A run's result: exit code and the agent's answer",
    access: computer,
    params: RunParams,
    body: ResultBody,
    responses: { 200: ResultAnswer },
    errors: [409],
  },
  {
    method: 'POST',
    path: '/api/v0/sessions',
    tag: 'Sessions',
    summary: 'Create a session on one of your computers',
    access: user(PEOPLE),
    body: CreateSessionBody,
    responses: { 201: Session },
    errors: [404, 409],
  },
  {
    method: 'GET',
    path: '/api/v0/sessions',
    tag: 'Sessions',
    summary: 'List sessions, newest first (members: their own)',
    access: user(PEOPLE),
    query: SessionListQuery,
    responses: { 200: SessionPage },
    errors: [404],
  },
  {
    method: 'GET',
    path: '/api/v0/sessions/:sessionId',
    tag: 'Sessions',
    summary: 'A session with its token usage',
    access: user(PEOPLE),
    params: SessionParams,
    query: GetQuery,
    responses: { 200: Session },
    errors: [409],
  },
  {
    method: 'PATCH',
    path: '/api/v0/sessions/:sessionId',
    tag: 'Sessions',
    summary: "Change a session's settings (null removes a field)",
    access: user(PEOPLE),
    params: SessionParams,
    body: PatchSessionBody,
    bodyOptional: true,
    responses: { 200: Session },
  },
  {
    method: 'POST',
    path: '/api/v0/sessions/:sessionId/messages',
    tag: 'Sessions',
    summary: 'Send a message: the computer runs the agent with it',
    access: user(PEOPLE),
    params: SessionParams,
    body: CreateMessageBody,
    responses: { 200: MessageCreated },
    errors: [403, 409],
  },
  {
    method: 'GET',
    path: '/api/v0/sessions/:sessionId/messages',
    tag: 'Sessions',
    summary: "A session's messages, oldest first",
    access: user(PEOPLE),
    params: SessionParams,
    query: MessagesQuery,
    responses: { 200: MessagePage },
  },
];

const exactly = (path: string) => new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);

/**
 * Routes that are not part of the API and so not in the document, matched on the Fastify path: the docs
 * page and its assets, and the dashboard's static files: its client-side pages (CLIENT_ROUTES, so a new
 * page is left out on its own), its hashed assets and its icon.
 */
export const NOT_IN_DOCUMENT: readonly RegExp[] = [
  /^\/docs(\/.*)?$/,
  // The SCIM 2.0 service describes itself to directories (/scim/v2/ServiceProviderConfig, /Schemas) and
  // answers SCIM bodies, not this document's; docs/scim.md describes it.
  /^\/scim\/v2(\/.*)?$/,
  ...CLIENT_ROUTES.map(exactly),
  /^\/assets\/\*$/,
  exactly('/favicon.svg'),
  /^\/\*$/,
];
