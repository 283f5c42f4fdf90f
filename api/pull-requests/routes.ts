// The code hosts' webhooks and the owners' routes that set their secrets (docs/pull-requests.md). A
// delivery is checked with the host's own scheme against the secret the organization's owner set, taken
// once by its delivery id, stored as the few facts docs/metrics.md §10 keeps, and answered at once; the
// linking to landed commits runs after the answer.

import type { FastifyInstance, FastifyRequest } from 'fastify';
import { badRequest, forbidden, HttpError, unauthorized } from '../../common/errors.ts';
import { seal, secretKey, unseal } from '../../common/sealing.ts';
import { utcDay } from '../../common/time.ts';
import { parseAnalyticsQuery } from '../analytics/query.ts';
import { sendAnswer, teamScoped } from '../answers/answer.ts';
import type { ResponseCache } from '../answers/cache.ts';
import type { Changes } from '../answers/changes.ts';
import type { Principal } from '../auth/principal.ts';
import { ADMIN_ROLES, OWNERS } from '../auth/principal.ts';
import { declareRoute } from '../openapi/declare.ts';
import type { RouteDoc } from '../openapi/registry.ts';
import type { TeamAnalytics } from '../teams/analytics.ts';
import type { LiveFiguresStore } from '../today/store.ts';
import { type CodeHost, githubPullRequest, gitlabMergeRequest, type PullRequestFact } from './payloads.ts';
import {
  type Listed,
  listOrder,
  pullRequestDays,
  pullRequestFigures,
  pullRequestGroups,
  pullRequestGroupTotals,
  pullRequestPage,
  pullRequestTotals,
  shippedSessions,
} from './report.ts';
import {
  CODEHOST_PATH,
  CODEHOSTS_PATH,
  CodeHostList,
  CodeHostView,
  DeliveryAnswer,
  GITHUB_HOOK_PATH,
  GITLAB_HOOK_PATH,
  HOOK_BODY_LIMIT,
  HookParams,
  HostParams,
  hookPath,
  PR_ANALYTICS_PATH,
  PR_CURSOR,
  PR_LIST_PATH,
  PullRequestAnalytics,
  PullRequestAnalyticsQuery,
  PullRequestListQuery,
  PullRequestPage,
  RemovedAnswer,
  SetSecretBody,
} from './schema.ts';
import type { PullRequestReads, PullRequestStore } from './store.ts';
import { githubSignatureValid, gitlabTokenHash, gitlabTokenValid } from './verify.ts';

export interface PullRequestDeps {
  store: PullRequestStore;
  dbPath: string;
  /** Runs after a delivery changed a pull request: links it to the landed commits it brought. */
  onStored?: (orgId: string, repo: string) => void;
  /** Told when a delivery changed a pull request: the answers that read them are stale. */
  changes?: Pick<Changes, 'changed'>;
}

const TAG = 'Pull requests';
const NOT_SIGNED = 'The delivery is not signed with the secret this organization set for the host';

const header = (request: FastifyRequest, name: string) => {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
};

interface HostScheme {
  host: CodeHost;
  path: string;
  summary: string;
  description: string;
  headers: { name: string; description: string }[];
  verify: (secret: { sealed: string | null; hash: string | null }, body: Buffer, request: FastifyRequest) => boolean;
  deliveryId: (request: FastifyRequest) => string | undefined;
  event: (request: FastifyRequest) => string | undefined;
  read: (event: string, body: unknown) => ReturnType<typeof githubPullRequest>;
}

export function registerPullRequestRoutes(app: FastifyInstance, deps: PullRequestDeps): void {
  const key = () => secretKey(deps.dbPath, true)!;
  const schemes: HostScheme[] = [
    {
      host: 'github',
      path: GITHUB_HOOK_PATH,
      summary: "GitHub's webhook: pull_request events of the organization's repositories",
      description:
        'Signed by GitHub with the secret an owner set (X-Hub-Signature-256, HMAC-SHA256 of the body); content type application/json. A delivery id taken before changes nothing.',
      headers: [
        { name: 'X-Hub-Signature-256', description: 'sha256=<hex HMAC-SHA256 of the body under the secret>' },
        { name: 'X-GitHub-Event', description: 'The event; only pull_request is kept (ping is answered)' },
        { name: 'X-GitHub-Delivery', description: "The delivery's id" },
      ],
      verify: (secret, body, request) =>
        secret.sealed !== null && githubSignatureValid(unseal(key(), secret.sealed), body, header(request, 'x-hub-signature-256')),
      deliveryId: (request) => header(request, 'x-github-delivery'),
      event: (request) => header(request, 'x-github-event'),
      read: githubPullRequest,
    },
    {
      host: 'gitlab',
      path: GITLAB_HOOK_PATH,
      summary: "GitLab's webhook: merge request events of the organization's projects",
      description:
        'Carries the secret token an owner set (X-Gitlab-Token); content type application/json. A delivery id (X-Gitlab-Event-UUID, or Idempotency-Key) taken before changes nothing.',
      headers: [
        { name: 'X-Gitlab-Token', description: 'The secret token set for the webhook' },
        { name: 'X-Gitlab-Event', description: 'The event; only Merge Request Hook is kept' },
        { name: 'X-Gitlab-Event-UUID', description: "The delivery's id (Idempotency-Key is read when it is absent)" },
      ],
      verify: (secret, _body, request) => secret.hash !== null && gitlabTokenValid(secret.hash, header(request, 'x-gitlab-token')),
      deliveryId: (request) => header(request, 'x-gitlab-event-uuid') ?? header(request, 'idempotency-key'),
      event: (request) => header(request, 'x-gitlab-event'),
      read: gitlabMergeRequest,
    },
  ];

  // The hooks' own scope: the body is kept as the bytes the host signed, parsed only once they are checked.
  void app.register(async (scope) => {
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: HOOK_BODY_LIMIT }, (_request, body, done) =>
      done(null, body),
    );
    for (const scheme of schemes) {
      declareRoute(
        scope,
        {
          method: 'POST',
          path: scheme.path,
          tag: TAG,
          summary: scheme.summary,
          description: scheme.description,
          access: { kind: 'codehost', host: scheme.host },
          params: HookParams,
          bodyContent: { 'application/json': { schema: { type: 'object', description: "The host's event, as it sends it" } } },
          headers: scheme.headers.slice(1).map((h) => ({ ...h, schema: { type: 'string' } })),
          responses: { 200: DeliveryAnswer, 202: DeliveryAnswer },
          options: { bodyLimit: HOOK_BODY_LIMIT },
        },
        async ({ params }, request, reply): Promise<DeliveryAnswer> => {
          const body = request.body;
          if (!Buffer.isBuffer(body)) throw new HttpError(415, 'a delivery is JSON: send it with Content-Type: application/json');
          const secret = await deps.store.secret(params.orgId, scheme.host);
          // An unknown organization and a wrong signature answer alike: the URL tells nothing by itself.
          if (!secret || !scheme.verify(secret, body, request)) throw unauthorized(NOT_SIGNED);
          const deliveryId = scheme.deliveryId(request);
          if (!deliveryId || deliveryId.length > 200) throw new HttpError(400, `the delivery has no id (${scheme.headers[2]!.name})`);
          let parsed: unknown;
          try {
            parsed = JSON.parse(body.toString('utf8'));
          } catch {
            throw new HttpError(400, 'the delivery is not JSON');
          }
          const result = scheme.read(scheme.event(request) ?? '', parsed);
          const fact: PullRequestFact | undefined = result.kind === 'ok' ? result.value : undefined;
          const taken = await deps.store.take(params.orgId, scheme.host, deliveryId, fact);
          const log = { org: params.orgId, host: scheme.host, delivery: deliveryId };
          if (!taken) {
            request.log.info(log, 'code host delivery taken before: ignored');
            return { status: 'duplicate', detail: 'this delivery id was taken before; nothing changed' };
          }
          reply.status(202);
          if (!fact) {
            const reason = result.kind === 'ok' ? '' : result.reason;
            request.log.info({ ...log, reason }, 'code host delivery ignored');
            return { status: 'ignored', detail: reason };
          }
          request.log.info({ ...log, repo: fact.repo, number: fact.number, state: fact.state }, 'pull request stored');
          deps.changes?.changed({ kind: 'pullRequest', org: params.orgId });
          if (deps.onStored) setImmediate(() => deps.onStored?.(params.orgId, fact.repo));
          return { status: 'accepted', detail: `${fact.repo} #${fact.number} (${fact.state})` };
        },
      );
    }
  });

  const view = (v: { host: CodeHost; setBy: string; setAt: string }, orgId: string) => ({ ...v, webhookPath: hookPath(v.host, orgId) });

  declareRoute(
    app,
    {
      method: 'PUT',
      path: CODEHOST_PATH,
      tag: TAG,
      summary: "Set the secret a code host signs this organization's webhook deliveries with",
      description:
        "GitHub's secret is kept sealed (it is needed to check each signature); GitLab's token only as its SHA-256. The answer names the webhook path to give the host.",
      action: "Setting a code host's webhook secret",
      access: { kind: 'user', roles: OWNERS },
      params: HostParams,
      body: SetSecretBody,
      responses: { 200: CodeHostView },
    },
    async ({ principal, params, body }, request) => {
      const stored =
        params.host === 'github' ? { sealed: seal(key(), body.secret), hash: null } : { sealed: null, hash: gitlabTokenHash(body.secret) };
      await deps.store.setSecret(principal.orgId, params.host, stored, principal.email);
      request.log.info({ org: principal.orgId, host: params.host }, 'code host secret set');
      const found = (await deps.store.hosts(principal.orgId)).find((h) => h.host === params.host)!;
      return view(found, principal.orgId);
    },
  );

  declareRoute(
    app,
    {
      method: 'GET',
      path: CODEHOSTS_PATH,
      freshness: 'setting',
      tag: TAG,
      summary: 'The code hosts whose webhooks this organization takes (never their secrets)',
      action: 'Reading the code hosts',
      access: { kind: 'user', roles: ADMIN_ROLES },
      responses: { 200: CodeHostList },
    },
    async ({ principal }) => ({ codehosts: (await deps.store.hosts(principal.orgId)).map((h) => view(h, principal.orgId)) }),
  );

  declareRoute(
    app,
    {
      method: 'DELETE',
      path: CODEHOST_PATH,
      tag: TAG,
      summary: "Remove a code host's secret: its deliveries are refused from then on",
      action: "Removing a code host's webhook secret",
      access: { kind: 'user', roles: OWNERS },
      params: HostParams,
      responses: { 200: RemovedAnswer },
    },
    async ({ principal, params }, request) => {
      const removed = await deps.store.removeSecret(principal.orgId, params.host);
      request.log.info({ org: principal.orgId, host: params.host, removed }, 'code host secret removed');
      return { removed };
    },
  );
}

export interface PullRequestReadDeps {
  reads: PullRequestReads;
  teams: TeamAnalytics;
  cache: ResponseCache;
  /** The live figures: the sessions' dollars of today, for the pull requests merged today. */
  live?: Pick<LiveFiguresStore, 'figures'>;
  now?: () => Date;
}

/**
 * What the pull request answers are built from: the deliveries, the landed commits (they arrive as
 * records), the sessions' dollars (the batch's), and the users' addresses (a member's own).
 */
const PR_READS = ['pullRequests', 'events', 'aggregates', 'users'] as const;

/** Who may read pull request figures: members too, restricted to the pull requests holding their commits. */
const PR_ROLES = ['owner', 'manager', 'member'] as const;
const ownOnly = (principal: Principal): string | null => (ADMIN_ROLES.includes(principal.role) ? null : principal.userId);

/** The dates of a pull request read by the analytics rules; the list reads them as stored, today included. */
function checkedDates(startDate: string, endDate: string, now: Date, throughToday = false) {
  return parseAnalyticsQuery('productivity', { startDate, endDate }, now, { throughToday });
}

export function registerPullRequestReadRoutes(app: FastifyInstance, deps: PullRequestReadDeps): void {
  const now = deps.now ?? (() => new Date());

  const analyticsDoc = {
    method: 'GET',
    path: PR_ANALYTICS_PATH,
    freshness: 'cached',
    tag: 'Analytics',
    summary: 'Merged pull requests per UTC day of merge: agent lines, time to merge, cost (an agentmeter extension)',
    description:
      "docs/metrics.md §10. Ungrouped: one record per day with zeros, with the cost of agent sessions whose lines reached no merged pull request (not_shipped_cost_usd). group_by=repo, team or agent: rows per day and non-zero group. team=: the pull requests holding commits of that team's members (and of the teams below it) on the day of merge, counted whole, and those members' not-shipped cost. Owners and managers see the organization; a member sees the pull requests holding their commits (meta.user_id).",
    action: 'The pull request figures',
    access: { kind: 'user', roles: PR_ROLES },
    query: PullRequestAnalyticsQuery,
    responses: { 200: PullRequestAnalytics },
  } as const satisfies RouteDoc;
  declareRoute(app, analyticsDoc, async ({ principal, query }, request, reply) => {
    const user = ownOnly(principal);
    if (teamScoped(query) && user) throw forbidden('Team figures are for owners and managers; a member sees their own figures');
    if (query.team !== undefined && query.group_by === 'team') throw badRequest('group_by=team and team= cannot be combined');
    const of = { org: principal.orgId, viewer: user, now: now(), reads: PR_READS, teams: deps.teams };
    return sendAnswer(deps.cache, request, reply, of, async (): Promise<PullRequestAnalytics> => {
      const q = checkedDates(query.startDate, query.endDate, now());
      // team= (docs/metrics.md §6): the pull requests holding commits of the team's members (and of the
      // teams below it) on the day of merge, counted whole as group_by=team counts them.
      const scope = query.team === undefined ? undefined : await deps.teams.scope(principal.orgId, query.team, q.startDate, q.endDate);
      const counts = (day: string, member: string) => !scope || scope.members(day).has(member);
      const all = await pullRequestFigures(deps.reads, principal.orgId, q.startDate, q.endDate, user);
      const prs = scope ? all.filter((p) => p.users.some((member) => counts(utcDay(p.mergedAt), member))) : all;
      const meta = { org_id: principal.orgId, start_date: q.startDate, end_date: q.endDate, ...(user ? { user_id: user } : {}) };
      if (query.group_by) {
        const days = q.days;
        const teams = query.group_by === 'team' ? await deps.teams.teamDays(principal.orgId, days, q.startDate, q.endDate) : undefined;
        const teamsOf = (day: string, member: string) =>
          (teams?.days ?? []).filter((t) => t.day === day && t.members.has(member)).map((t) => t.team.name);
        const data = pullRequestGroups(query.group_by, prs, teamsOf);
        return { data, meta: { ...meta, group_totals: pullRequestGroupTotals(data) } };
      }
      const shipped = await shippedSessions(deps.reads, principal.orgId, q.startDate, q.endDate, user, all);
      const notShipped = await deps.reads.notShipped(principal.orgId, q.startDate, q.endDate, shipped, user, counts);
      const data = pullRequestDays(q.days, prs, notShipped);
      return { data, meta: { ...meta, totals: pullRequestTotals(data) } };
    });
  });

  const listDoc = {
    method: 'GET',
    path: PR_LIST_PATH,
    freshness: 'cached',
    tag: 'Analytics',
    summary: 'Merged pull requests with their commits, agent lines and cost, newest first, paged',
    description:
      'Pull requests merged from startDate to endDate (today included). next_cursor is the last of the page. A member sees the pull requests holding their commits or authored by one of their addresses.',
    action: 'The merged pull requests',
    access: { kind: 'user', roles: PR_ROLES },
    query: PullRequestListQuery,
    responses: { 200: PullRequestPage },
  } as const satisfies RouteDoc;
  declareRoute(app, listDoc, async ({ principal, query }, request, reply) => {
    const user = ownOnly(principal);
    if (teamScoped(query) && user) throw forbidden('Team figures are for owners and managers; a member sees their own pull requests');
    const of = { org: principal.orgId, viewer: user, now: now(), reads: PR_READS, teams: deps.teams };
    return sendAnswer(deps.cache, request, reply, of, async (): Promise<PullRequestPage> => {
      const q = checkedDates(query.startDate, query.endDate, now(), true);
      // team=, as the figures take it: the pull requests holding commits of its members on the day of merge.
      const scope = query.team === undefined ? undefined : await deps.teams.scope(principal.orgId, query.team, q.startDate, q.endDate);
      const limit = query.limit ? Number(query.limit) : 20;
      const match = query.cursor ? PR_CURSOR.exec(query.cursor) : null;
      const after = (p: Listed) =>
        !match ||
        p.mergedAt < Number(match[1]) ||
        (p.mergedAt === Number(match[1]) && (p.number < Number(match[2]) || (p.number === Number(match[2]) && p.repo < match[3]!)));
      // Merged today: its sessions' dollars of today are the live figures', not yet the batch's.
      const today = now().toISOString().slice(0, 10);
      const later = q.endDate === today && deps.live ? (await deps.live.figures({ orgId: principal.orgId })).sessionCosts : undefined;
      // Everyone's are paged before they are linked; a member's own and a team's are known once linked.
      const paged = async () => {
        if (user === null && scope === undefined)
          return pullRequestPage(deps.reads, principal.orgId, q.startDate, q.endDate, after, limit, later);
        const all = (await pullRequestFigures(deps.reads, principal.orgId, q.startDate, q.endDate, user, later))
          .sort(listOrder)
          .filter((p) => !scope || p.users.some((member) => scope.members(utcDay(p.mergedAt)).has(member)))
          .filter(after);
        return { page: all.slice(0, limit), more: all.length > limit };
      };
      const { page, more } = await paged();
      const last = page.at(-1);
      return {
        data: page.map((p) => ({
          repo: p.repo,
          number: p.number,
          host: p.host,
          author: p.author,
          opened_at: new Date(p.openedAt).toISOString(),
          merged_at: new Date(p.mergedAt).toISOString(),
          hours_to_merge: p.hoursToMerge,
          commits: p.commits,
          lines_added: p.linesAdded,
          agent_lines: p.agentLines,
          agent_share: p.linesAdded > 0 ? Math.round((p.agentLines / p.linesAdded) * 10_000) / 10_000 : 0,
          by_agent: p.byAgent.map((a) => ({ agent: a.agent, model_id: a.model, lines: a.lines })),
          cost_usd: p.costUsd,
        })),
        meta: {
          org_id: principal.orgId,
          start_date: q.startDate,
          end_date: q.endDate,
          has_more: more,
          next_cursor: more && last ? `${last.mergedAt}.${last.number}.${last.repo}` : null,
          ...(user ? { user_id: user } : {}),
        },
      };
    });
  });
}
