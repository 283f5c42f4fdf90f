// Every answer of a walk through the whole API (each route family, successes and errors) checked against
// the OpenAPI document the server serves: the status must be documented for the operation, and the body
// must match its JSON Schema (Ajv, JSON Schema 2020-12). The walk must touch every operation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubSignature } from '../../api/pull-requests/verify.ts';
import { READINESS_PATHS } from '../../api/readiness/schema.ts';
import { VERSION } from '../../common/version.ts';
import { Contract, type OpenApiDocument } from '../helpers/openapi.ts';
import { ev, message, call as toolCall, turn, usage } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T09:00:00Z');
const D = '2026-03-02';
const METRICS_TOKEN = 'metrics-token-of-at-least-32-characters';
let server: TestServer;
let contract: Contract;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;
const problems: string[] = [];

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
interface CallOptions {
  key?: string | undefined;
  body?: unknown;
  headers?: Record<string, string>;
}

/** One request, its answer checked against the document; returns status and parsed JSON body. */
async function call(method: Method, url: string, options: CallOptions = {}) {
  const res = await server.app.inject({
    method,
    url,
    headers: { ...(options.key ? bearer(options.key) : {}), ...options.headers },
    ...(options.body !== undefined ? { payload: options.body as never } : {}),
  });
  problems.push(...contract.problems(method, url, res.statusCode, res.headers['content-type'] as string | undefined, res.body));
  let json: any;
  try {
    json = JSON.parse(res.body);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, json, text: res.body };
}
const ok = async (method: Method, url: string, options: CallOptions = {}, status = 200) => {
  const res = await call(method, url, options);
  expect(res.status, `${method} ${url}: ${res.text.slice(0, 300)}`).toBe(status);
  return res.json;
};

beforeAll(async () => {
  server = await testServer({ now: () => NOW, metricsToken: METRICS_TOKEN });
  org = await server.seedOrg('Contract');
  const res = await server.app.inject({ method: 'GET', url: '/openapi.json' });
  contract = new Contract(res.json() as OpenApiDocument);
});
afterAll(() => server.close());

describe('the API answers as its OpenAPI document says', () => {
  it('operations, ingest, batch and analytics', async () => {
    const manager = org.users.manager.key;
    await ok('GET', '/healthz');
    await ok('GET', '/openapi.json');
    const records = [
      // `<machine id>.<spool file>`, as the collector names events: GET /api/v0/machines lists the machine.
      turn(D, { session_id: 'c1', id: '0123456789abcdef.1700000000.1' }),
      toolCall('Bash', D, { session_id: 'c1', autonomy: 'auto-high' }),
      toolCall('mcp__github__list', D, { session_id: 'c1' }),
      ev('PostToolUse', D, { session_id: 'c1', tool_name: 'Edit', tool_success: true, files: [{ ext: 'ts', name: 'a.ts', op: 'edit' }] }),
      usage('claude-sonnet-4-5', D, { input_tokens: 1000, output_tokens: 200 }, false, 'c1'),
      message(D, 'c1'),
    ];
    const ndjson = { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' };
    const stored = await ok('POST', '/api/v1/ingest/events', {
      key: org.users.member.key,
      headers: ndjson,
      body: gzipNdjson([...records, { kind: 'event', id: 'bad' }]),
    });
    expect(stored).toMatchObject({ received: 7, stored: 6, duplicates: 0 });
    await ok('POST', '/api/v1/ingest/events', {
      key: org.users.member.key,
      body: JSON.stringify(records),
      headers: { 'content-type': 'application/json' },
    });
    expect((await call('POST', '/api/v1/ingest/events', { headers: ndjson, body: gzipNdjson(records) })).status).toBe(401);
    expect(
      (await call('POST', '/api/v1/ingest/events', { key: manager, headers: { ...ndjson, 'content-encoding': 'br' }, body: 'x' })).status,
    ).toBe(415);
    expect(
      (await call('POST', '/api/v1/ingest/events', { key: manager, headers: { 'content-type': 'text/csv' }, body: 'a,b' })).status,
    ).toBe(415);

    // OpenTelemetry in (docs/metrics.md §11): OTLP/JSON on the server's /v1 routes.
    const resource = { attributes: [{ key: 'service.name', value: { stringValue: 'claude-code' } }] };
    const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
    await ok('POST', '/v1/metrics', {
      key: org.users.member.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        resourceMetrics: [
          {
            resource,
            scopeMetrics: [
              {
                metrics: [
                  {
                    name: 'claude_code.code_edit_tool.decision',
                    sum: {
                      aggregationTemporality: 1,
                      dataPoints: [
                        {
                          asInt: '1',
                          timeUnixNano: `${Date.parse(`${D}T10:00:00Z`)}000000`,
                          attributes: [attr('decision', 'accept'), attr('tool_name', 'Edit')],
                        },
                      ],
                    },
                  },
                ],
              },
            ],
          },
        ],
      }),
    });
    await ok('POST', '/v1/logs', {
      key: org.users.member.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceLogs: [{ resource, scopeLogs: [{ logRecords: [{ eventName: 'claude_code.user_prompt' }] }] }] }),
    });
    await ok('POST', '/v1/traces', {
      key: org.users.member.key,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ resourceSpans: [{ resource, scopeSpans: [{ spans: [{ name: 'chat' }] }] }] }),
    });
    expect((await call('POST', '/v1/logs', { headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
    expect((await call('POST', '/v1/logs', { key: manager, headers: { 'content-type': 'text/csv' }, body: 'a' })).status).toBe(415);

    // Code the agents wrote (docs/metrics.md §5): an edit with its lines and a landed commit.
    const sha = 'a'.repeat(40);
    await ok('POST', '/api/v1/ingest/events', {
      key: org.users.member.key,
      headers: ndjson,
      body: gzipNdjson([
        toolCall('Write', D, { session_id: 'c1', edits: [{ ext: 'ts', lines_added: 3, lines_deleted: 0 }] }),
        {
          kind: 'commit',
          id: `repo_0123456789abcdef:${sha}`,
          repo_id: 'repo_0123456789abcdef',
          repo: 'github.com/acme/shop',
          commit: sha,
          ts: Date.parse(`${D}T15:00:00Z`),
          author: 'member@contract.example.com',
          lines_added: 4,
          lines_deleted: 1,
          agent_lines: 3,
          by_agent: [{ agent: 'claude', model: 'claude-sonnet-4-5', lines: 3 }],
        },
      ]),
    });

    const report = await ok('POST', '/api/v0/admin/batch', { key: manager, body: { from: D, to: D } });
    expect(report).toMatchObject({ mode: 'range', days: 1 });
    expect((await call('POST', '/api/v0/admin/batch', { key: org.users.member.key, body: {} })).status).toBe(403);

    const range = `startDate=2026-03-01&endDate=${D}`;
    for (const [endpoint, groupBy] of [
      ['tokens', 'model'],
      ['tools', 'tool_name'],
      ['activity', 'client'],
      ['productivity', undefined],
      ['users', undefined],
    ] as const) {
      const body = await ok('GET', `/api/v1/analytics/${endpoint}?${range}`, { key: manager });
      expect(body.data.length).toBeGreaterThan(0);
      if (groupBy)
        expect(
          (await ok('GET', `/api/v1/analytics/${endpoint}?${range}&group_by=${groupBy}`, { key: manager })).data.length,
        ).toBeGreaterThan(0);
    }
    const tokens = await ok('GET', `/api/v1/analytics/tokens?startDate=${D}&endDate=${D}`, { key: manager });
    expect(tokens.data[0].by_model[0].model_id).toBe('claude-sonnet-4-5');
    expect((await ok('GET', `/api/v1/analytics/users?${range}&limit=1`, { key: manager })).meta).toMatchObject({ has_more: false });
    expect((await call('GET', `/api/v1/analytics/tools?startDate=2026-03-20&endDate=2026-03-20`, { key: manager })).status).toBe(400);
    expect((await call('GET', `/api/v1/analytics/activity?${range}`, { key: org.users.member.key })).status).toBe(403);
    expect((await call('GET', `/api/v1/analytics/productivity?${range}`)).status).toBe(401);
    const code = await ok('GET', `/api/v1/analytics/code?startDate=${D}&endDate=${D}`, { key: manager });
    expect(code.data[0].landed).toMatchObject({ commits: 1, agent_lines_added: 3, agent_share: 0.75 });
    expect((await ok('GET', `/api/v1/analytics/code?${range}&group_by=repo`, { key: org.users.member.key })).data).toHaveLength(1);
    expect((await call('GET', `/api/v1/analytics/code?${range}&team=Nope`, { key: manager })).status).toBe(400);
    expect((await call('GET', `/api/v1/analytics/code?${range}`, { key: org.users.guest.key })).status).toBe(403);
    const commits = await ok('GET', `/api/v0/code/commits?${range}&limit=1`, { key: org.users.member.key });
    expect(commits.data[0]).toMatchObject({ commit: sha, agent_lines: 3 });
    expect((await call('GET', `/api/v0/code/commits?${range}&limit=0`, { key: manager })).status).toBe(400);
    expect((await call('GET', `/api/v0/code/commits?${range}`, { key: org.users.guest.key })).status).toBe(403);

    const runs = await ok('GET', '/api/v0/admin/batch/runs?limit=5', { key: manager });
    expect(runs.runs[0]).toMatchObject({ trigger: 'api', daysRebuilt: 1 });
    expect((await call('GET', '/api/v0/admin/batch/runs?limit=0', { key: manager })).status).toBe(400);
    expect((await call('GET', '/api/v0/admin/batch/runs', { key: org.users.member.key })).status).toBe(403);

    const machines = await ok('GET', '/api/v0/machines', { key: manager });
    expect(machines.machines).toHaveLength(1);
    expect(machines.machines[0]).toMatchObject({ machineId: '0123456789abcdef', userId: org.users.member.id, events: 1 });
    expect((await call('GET', '/api/v0/machines', { key: org.users.guest.key })).status).toBe(403);
    expect((await ok('GET', '/api/v0/machines/keys', { key: manager })).keys).toEqual([]);

    const mine = await ok('GET', `/api/v0/usage/users/me?${range}`, { key: org.users.member.key });
    expect(mine.meta).toMatchObject({ user_id: org.users.member.id, role: 'member' });
    expect(mine.data.length).toBeGreaterThan(0);
    await ok('GET', `/api/v0/usage/users/${org.users.member.id}?${range}`, { key: manager });
    expect((await call('GET', `/api/v0/usage/users/${org.users.manager.id}?${range}`, { key: org.users.member.key })).status).toBe(404);
    expect((await call('GET', `/api/v0/usage/users/me?startDate=${D}`, { key: org.users.member.key })).status).toBe(400);
    expect((await call('GET', `/api/v0/usage/users/me?${range}`, { key: org.users.guest.key })).status).toBe(403);

    const installer = await call('GET', '/install.sh', { headers: { host: 'agentmeter.example.com:8080' } });
    expect(installer.status).toBe(200);
    expect(installer.text).toContain("SERVER='http://agentmeter.example.com:8080'");
    expect((await call('GET', `/install/${VERSION}/agentmeter-hook.sh`)).status).toBe(200);
    expect((await call('GET', '/install/0.0.0-old/agentmeter.mjs')).status).toBe(404);

    const metrics = await call('GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    expect(metrics.status).toBe(200);
    expect((await call('GET', '/metrics', { key: org.users.owner.key })).status).toBe(401);
  });

  it('readiness, organization, controls and credit limits', async () => {
    const { owner, manager, member, guest } = org.users;
    const report = {
      repoUrl: 'https://github.com/acme/web-app',
      apps: { '.': { description: 'The web app' } },
      report: { lint_config: { numerator: 1, denominator: 2, rationale: 'eslint in one app' } },
      modelUsed: { id: 'claude-sonnet-4-5', reasoningEffort: 'medium' },
    };
    for (const path of READINESS_PATHS) {
      const created = await ok('POST', path, { key: member.key, body: report }, 201);
      expect((await call('POST', path, { key: member.key, body: { ...report, reportId: created.report.reportId } })).status).toBe(409);
      expect((await ok('GET', `${path}?limit=5`, { key: manager.key })).reports.length).toBeGreaterThan(0);
      expect((await call('GET', `${path}?repoId=nope`, { key: manager.key })).status).toBe(400);
      expect((await call('GET', path, { key: guest.key })).status).toBe(403);
    }

    expect((await ok('GET', '/api/v0/organization/users?limit=2', { key: manager.key })).pagination.hasMore).toBe(true);
    expect((await call('GET', '/api/v0/organization/users', { key: guest.key })).status).toBe(403);

    expect(await ok('GET', '/api/v0/organization/enterprise-controls', { key: manager.key })).toEqual({ revision: 0, settings: {} });
    const settings = { cloudSessionSync: true, customModels: [{ id: 'm', apiKey: 'sk-secret' }] };
    const change = await ok('PUT', '/api/v0/organization/enterprise-controls', { key: owner.key, body: { settings } });
    expect(change.settings.customModels[0].apiKey).toBe('********');
    expect((await ok('GET', '/api/v0/organization/enterprise-controls', { key: manager.key })).revision).toBe(1);
    expect((await ok('GET', '/api/v0/organization/enterprise-controls/history?limit=1', { key: manager.key })).changes).toHaveLength(1);
    expect((await call('PUT', '/api/v0/organization/enterprise-controls', { key: manager.key, body: { settings } })).status).toBe(403);
    expect(
      (await call('PUT', '/api/v0/organization/enterprise-controls', { key: owner.key, body: { settings: { nope: 1 } } })).status,
    ).toBe(400);

    const limits = '/api/v0/organization/usage/limits/users';
    const update = await ok('PUT', limits, {
      key: manager.key,
      body: {
        users: [
          { email: 'member@contract.example.com', limit: 100 },
          { email: 'nobody@example.com', limit: 5 },
        ],
      },
    });
    expect(update.updated).toHaveLength(1);
    expect(update.errors).toHaveLength(1);
    expect((await ok('GET', limits, { key: member.key })).users).toHaveLength(1);
    expect(await ok('PUT', '/api/v0/organization/usage/limits/enforcement', { key: owner.key, body: { enabled: true } })).toEqual({
      enforced: true,
    });
    expect(
      (await call('PUT', '/api/v0/organization/usage/limits/enforcement', { key: manager.key, body: { enabled: false } })).status,
    ).toBe(403);
    expect((await call('GET', limits, { key: guest.key })).status).toBe(403);
  });

  it('today so far, budgets and alerts', async () => {
    const { owner, manager, member, guest } = org.users;
    expect((await ok('GET', '/api/v1/analytics/today', { key: manager.key })).data.provisional).toBe(true);
    await ok('GET', '/api/v1/analytics/today', { key: member.key });
    expect((await call('GET', '/api/v1/analytics/today', { key: guest.key })).status).toBe(403);
    const budgets = { budgets: [{ scope: 'user', email: 'member@contract.example.com', monthlyCredits: 100, thresholds: [90, 100] }] };
    expect((await ok('PUT', '/api/v0/organization/budgets', { key: owner.key, body: budgets })).budgets).toHaveLength(1);
    expect((await call('PUT', '/api/v0/organization/budgets', { key: manager.key, body: budgets })).status).toBe(403);
    expect(
      (
        await call('PUT', '/api/v0/organization/budgets', {
          key: owner.key,
          body: { budgets: [{ scope: 'team', team: 'x', monthlyCredits: 1 }] },
        })
      ).status,
    ).toBe(400);
    expect((await ok('GET', '/api/v0/organization/budgets', { key: manager.key })).month).toBe('2026-03');
    expect((await ok('GET', '/api/v0/organization/forecast', { key: manager.key })).month).toBe('2026-03');
    expect((await call('GET', '/api/v0/organization/forecast', { key: member.key })).status).toBe(403);
    const patched = await ok('PATCH', '/api/v0/organization/budgets', {
      key: owner.key,
      body: { budget: { scope: 'org', monthlyUsd: 50 } },
    });
    expect(patched.budgets).toHaveLength(2);
    expect((await call('PATCH', '/api/v0/organization/budgets', { key: manager.key, body: { remove: { scope: 'org' } } })).status).toBe(
      403,
    );
    expect(
      (await ok('PATCH', '/api/v0/organization/budgets', { key: owner.key, body: { remove: { scope: 'org' } } })).budgets,
    ).toHaveLength(1);
    expect((await ok('GET', '/api/v0/organization/alerts?month=2026-03', { key: manager.key })).alerts).toBeInstanceOf(Array);
    expect((await call('GET', '/api/v0/organization/alerts?month=March', { key: manager.key })).status).toBe(400);
    // A month 13 names no month: refused, not answered with nothing.
    expect((await call('GET', '/api/v0/organization/alerts?month=2026-13', { key: manager.key })).status).toBe(400);
    const settings = '/api/v0/organization/alert-settings';
    expect((await ok('PATCH', settings, { key: owner.key, body: { anomalies: { floorUsd: 35 } } })).anomalies.floorUsd).toBe(35);
    expect((await call('PATCH', settings, { key: manager.key, body: { anomalies: { floorUsd: 1 } } })).status).toBe(403);
    expect((await call('PATCH', settings, { key: owner.key, body: { anomalies: { floorUsd: 'x' } } })).status).toBe(400);
    expect((await ok('GET', settings, { key: manager.key })).digest.next).toBeNull();
    expect((await call('GET', settings, { key: member.key })).status).toBe(403);
    expect((await ok('GET', '/api/v0/organization/digest/preview', { key: manager.key })).destinations).toBe(0);
    expect((await call('GET', '/api/v0/organization/digest/preview', { key: guest.key })).status).toBe(403);
    expect((await ok('GET', '/api/v0/me/status', { key: member.key })).limit).toBe(100);
    const price = { model: 'local-coder', effectiveFrom: '2026-03-01', inputMtok: 0.5, outputMtok: 1 };
    expect((await ok('PUT', '/api/v0/organization/pricing', { key: owner.key, body: price })).prices).toHaveLength(1);
    expect((await call('PUT', '/api/v0/organization/pricing', { key: manager.key, body: price })).status).toBe(403);
    expect((await ok('GET', '/api/v0/organization/pricing', { key: manager.key })).prices[0].model).toBe('local-coder');
    expect((await call('GET', '/api/v0/organization/pricing', { key: member.key })).status).toBe(403);
    expect(
      (await ok('DELETE', '/api/v0/organization/pricing?model=local-coder&effectiveFrom=2026-03-01', { key: owner.key })).prices,
    ).toEqual([]);
    expect((await call('GET', '/api/v0/me/status', { key: guest.key })).status).toBe(403);
  });

  it('admin users and keys', async () => {
    const { owner, member } = org.users;
    const created = await ok(
      'POST',
      '/api/v0/admin/users',
      { key: owner.key, body: { email: 'new@contract.example.com', role: 'member' } },
      201,
    );
    expect(created.apiKey).toMatch(/^am_/);
    expect(
      (await call('POST', '/api/v0/admin/users', { key: owner.key, body: { email: 'new@contract.example.com', role: 'member' } })).status,
    ).toBe(409);
    expect(
      (await call('POST', '/api/v0/admin/users', { key: member.key, body: { email: 'x@contract.example.com', role: 'owner' } })).status,
    ).toBe(403);
    const userId = created.user.id as string;
    expect((await ok('GET', `/api/v0/admin/users/${userId}/keys`, { key: owner.key })).keys).toHaveLength(1);
    const key = await ok('POST', `/api/v0/admin/users/${userId}/keys`, { key: owner.key, body: { name: 'ci' } }, 201);
    expect((await ok('DELETE', `/api/v0/admin/keys/${key.key.id}`, { key: owner.key })).revoked).toBe(true);
    expect((await call('DELETE', '/api/v0/admin/keys/key_unknown', { key: owner.key })).status).toBe(404);
    expect((await ok('GET', '/api/v0/admin/whoami', { key: member.key })).role).toBe('member');
    // Aliases: a user's other addresses (docs/metrics.md §5), owners only; the collector reads its own.
    const aliases = `/api/v0/admin/users/${userId}/aliases`;
    expect((await ok('POST', aliases, { key: owner.key, body: { email: '1+new@users.noreply.github.com' } }, 201)).data).toHaveLength(1);
    expect((await ok('GET', aliases, { key: owner.key })).data[0].source).toBe('owner');
    expect((await call('POST', aliases, { key: owner.key, body: { email: 'member@contract.example.com' } })).status).toBe(409);
    expect((await ok('DELETE', `${aliases}/1%2Bnew%40users.noreply.github.com`, { key: owner.key })).data).toEqual([]);
    expect((await ok('GET', '/api/v0/me/addresses', { key: member.key })).data.addresses).toEqual(['member@contract.example.com']);

    const listed = await ok('GET', '/api/v0/admin/users', { key: owner.key });
    expect(listed.users.find((u: { id: string }) => u.id === userId)).toMatchObject({ role: 'member', activeKeys: 1 });
    expect((await call('GET', '/api/v0/admin/users', { key: member.key })).status).toBe(403);
    // Removal with erasure: the new user's records go, and the days they were on are rebuilt.
    await ok('POST', '/api/v1/ingest/events', {
      key: created.apiKey,
      body: JSON.stringify([turn(D, { session_id: 'erase-me' })]),
      headers: { 'content-type': 'application/json' },
    });
    expect((await call('DELETE', `/api/v0/admin/users/${userId}?erase=maybe`, { key: owner.key })).status).toBe(400);
    expect((await call('DELETE', `/api/v0/admin/users/${userId}`, { key: member.key })).status).toBe(403);
    expect((await call('DELETE', `/api/v0/admin/users/${owner.id}`, { key: owner.key })).status).toBe(409);
    const removed = await ok('DELETE', `/api/v0/admin/users/${userId}?erase=true`, { key: owner.key });
    expect(removed).toMatchObject({ userId, keysRevoked: 1, erased: { events: 1 } });
    expect(removed.daysRebuilt).toBeGreaterThan(0);
    expect((await call('DELETE', `/api/v0/admin/users/${userId}`, { key: owner.key })).status).toBe(404);
  });

  it('the dashboard sign-in session', async () => {
    const { member } = org.users;
    const dashboard = { 'x-agentmeter-dashboard': '1' };
    expect((await call('POST', '/api/v0/auth/session', { body: { credential: member.key } })).status).toBe(403);
    expect((await call('POST', '/api/v0/auth/session', { headers: dashboard, body: { credential: 'am_nope' } })).status).toBe(401);
    expect((await call('POST', '/api/v0/auth/session', { headers: dashboard, body: { key: member.key } })).status).toBe(400);
    const signIn = await server.app.inject({
      method: 'POST',
      url: '/api/v0/auth/session',
      headers: dashboard,
      payload: { credential: member.key },
    });
    problems.push(
      ...contract.problems('POST', '/api/v0/auth/session', signIn.statusCode, signIn.headers['content-type'] as string, signIn.body),
    );
    expect(signIn.statusCode, signIn.body).toBe(201);
    expect(signIn.json()).toMatchObject({ userId: member.id, role: 'member' });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;

    expect(await ok('GET', '/api/v0/auth/session', { headers: { cookie } })).toMatchObject({ signedIn: true, me: { userId: member.id } });
    expect(await ok('GET', '/api/v0/auth/session')).toEqual({ signedIn: false });
    expect((await ok('GET', '/api/v0/auth/me', { headers: { cookie } })).sessionExpiresAt).toBeGreaterThan(0);
    expect((await ok('GET', '/api/v0/auth/me', { key: member.key })).sessionExpiresAt).toBeUndefined();
    expect((await call('GET', '/api/v0/auth/me')).status).toBe(401);
    expect((await call('DELETE', '/api/v0/auth/session', { headers: { cookie } })).status).toBe(403);
    const out = await call('DELETE', '/api/v0/auth/session', { headers: { cookie, ...dashboard } });
    expect(out.status).toBe(204);
    expect((await call('GET', '/api/v0/auth/me', { headers: { cookie } })).status).toBe(401);
  });

  it('adoption', async () => {
    const { owner, member } = org.users;
    expect((await ok('GET', '/api/v0/organization/adoption', { key: owner.key })).totals.people).toBeGreaterThan(0);
    expect((await call('GET', '/api/v0/organization/adoption', { key: member.key })).status).toBe(403);
  });

  it('enrollment by device code', async () => {
    const { member } = org.users;
    const started = await ok('POST', '/api/v0/auth/device', { body: { name: 'contract laptop' } }, 201);
    expect(await ok('POST', '/api/v0/auth/device/token', { body: { deviceCode: started.deviceCode } })).toMatchObject({
      status: 'authorization_pending',
    });
    expect((await call('POST', '/api/v0/auth/device/token', { body: { deviceCode: 'amd_unknown' } })).status).toBe(400);
    const path = `/api/v0/auth/device/requests/${started.userCode}`;
    expect(await ok('GET', path, { key: member.key })).toMatchObject({ state: 'pending', machineName: 'contract laptop' });
    expect((await call('GET', '/api/v0/auth/device/requests/BCDF-GHJK', { key: member.key })).status).toBe(404);
    expect(await ok('POST', path, { key: member.key, body: { decision: 'deny' } })).toMatchObject({ state: 'denied' });
    expect((await call('POST', path, { key: member.key, body: { decision: 'approve' } })).status).toBe(409);
    expect((await call('POST', path, { key: member.key, body: { decision: 'maybe' } })).status).toBe(400);
  });

  it('computers, the computer agent protocol and sessions', async () => {
    const { member, manager, guest } = org.users;
    const registered = await ok('POST', '/api/v0/computers', { key: member.key, body: { name: 'laptop', hostname: 'dev-box' } }, 201);
    const computer = { id: registered.computer.id as string, token: registered.token as string };
    expect((await call('POST', '/api/v0/computers', { key: guest.key, body: { name: 'x' } })).status).toBe(403);
    expect((await ok('GET', '/api/v0/computers?limit=5', { key: manager.key })).computers).toHaveLength(1);
    await ok('GET', `/api/v0/computers/${computer.id}`, { key: member.key });
    expect((await call('GET', '/api/v0/computers/cmp_unknown', { key: member.key })).status).toBe(404);
    const agent = (path: string) => `/api/v0/computers/${computer.id}/agent${path}`;
    expect((await call('GET', agent('/work?waitMs=0'), { key: computer.token })).status).toBe(409);
    await ok('POST', agent('/hello'), {
      key: computer.token,
      body: { checks: [{ name: 'agent command', ok: true }], agentCommand: 'droid exec' },
    });
    expect((await call('POST', agent('/hello'), { key: member.key, body: {} })).status).toBe(401);

    const session = await ok('POST', '/api/v0/sessions', { key: member.key, body: { computerId: computer.id, cwd: '/src' } }, 201);
    const sessionId = session.sessionId as string;
    const sent = await ok('POST', `/api/v0/sessions/${sessionId}/messages`, { key: member.key, body: { text: 'hello' } });
    const work = await ok('GET', agent('/work?waitMs=0'), { key: computer.token });
    expect(work.work.messageId).toBe(sent.messageId);
    await ok('POST', agent(`/messages/${sent.messageId}/start`), { key: computer.token });
    await ok('POST', agent(`/messages/${sent.messageId}/heartbeat`), { key: computer.token });
    expect(
      await ok('POST', agent(`/messages/${sent.messageId}/result`), { key: computer.token, body: { exitCode: 0, output: 'hi' } }),
    ).toEqual({
      status: 'idle',
    });
    expect((await call('POST', agent(`/messages/${sent.messageId}/start`), { key: computer.token })).status).toBe(409);
    expect((await ok('GET', `/api/v0/sessions/${sessionId}?computerId=${computer.id}`, { key: manager.key })).messageCount).toBe(2);
    await ok('PATCH', `/api/v0/sessions/${sessionId}`, { key: member.key, body: { sessionSettings: { tags: [{ name: 'x' }] } } });
    expect((await ok('GET', '/api/v0/sessions?limit=5', { key: member.key })).sessions).toHaveLength(1);
    expect((await ok('GET', `/api/v0/sessions/${sessionId}/messages`, { key: member.key })).messages).toHaveLength(2);
    expect((await call('GET', '/api/v0/sessions/ses_unknown', { key: member.key })).status).toBe(404);
    expect((await call('POST', '/api/v0/sessions', { key: member.key, body: { computerId: computer.id, cwd: '' } })).status).toBe(400);
  });

  it('teams: the roster, its refusal, the listing, the minimum size and team figures', async () => {
    const owner = org.users.owner.key;
    const csv = { 'content-type': 'text/csv' };
    const email = 'member@contract.example.com';
    await ok('PUT', '/api/v0/organization/teams', { key: owner, headers: csv, body: `email,team,parent,from,to\n${email},Core,Eng,,\n` });
    const refused = await call('PUT', '/api/v0/organization/teams', {
      key: owner,
      headers: csv,
      body: 'email,team,parent,from,to\nx@y.z,Core,,,\n',
    });
    expect(refused.status).toBe(400);
    expect(refused.json.errors).toEqual([{ line: 2, reason: expect.stringContaining('x@y.z') }]);
    expect((await ok('GET', '/api/v0/organization/teams', { key: org.users.manager.key })).teams).toHaveLength(2);
    await ok('PUT', '/api/v0/organization/teams/settings', { key: owner, body: { minTeamSize: 1 } });
    await ok('GET', `/api/v1/analytics/tokens?startDate=${D}&endDate=${D}&group_by=team`, { key: owner });
    await ok('GET', `/api/v1/analytics/activity?startDate=${D}&endDate=${D}&group_by=team`, { key: owner });
    await ok('GET', `/api/v1/analytics/productivity?startDate=${D}&endDate=${D}&group_by=team`, { key: owner });
    await ok('GET', `/api/v1/analytics/tools?startDate=${D}&endDate=${D}&team=Eng`, { key: owner });
    await ok('GET', `/api/v1/analytics/users?startDate=${D}&endDate=${D}&team=Eng`, { key: owner });
    await ok('GET', `/api/v1/analytics/code?startDate=${D}&endDate=${D}&group_by=team`, { key: owner });
    await ok('GET', `/api/v1/analytics/code?startDate=${D}&endDate=${D}&team=Eng`, { key: owner });
    await ok('GET', '/api/v1/analytics/today?team=Eng', { key: owner });
  });

  it('identity: SCIM tokens, the OIDC provider setting and the public sign-in routes', async () => {
    const owner = org.users.owner.key;
    const minted = await ok('POST', '/api/v0/admin/scim/tokens', { key: owner, body: { name: 'okta' } }, 201);
    expect((await call('POST', '/api/v0/admin/scim/tokens', { key: org.users.member.key, body: {} })).status).toBe(403);
    expect((await ok('GET', '/api/v0/admin/scim/tokens', { key: owner })).tokens).toHaveLength(1);
    await ok('DELETE', `/api/v0/admin/scim/tokens/${minted.scimToken.id}`, { key: owner });
    expect((await call('DELETE', '/api/v0/admin/scim/tokens/sct_unknown', { key: owner })).status).toBe(404);
    // A directory's rename of an owner is held until an owner confirms it.
    const directory = (await ok('POST', '/api/v0/admin/scim/tokens', { key: owner, body: { name: 'entra' } }, 201)).token as string;
    const renamed = await server.app.inject({
      method: 'PATCH',
      url: `/scim/v2/Users/${org.users.owner.id}`,
      headers: { ...bearer(directory), 'content-type': 'application/scim+json' },
      payload: JSON.stringify({ Operations: [{ op: 'replace', path: 'userName', value: 'owner-renamed@contract.example.com' }] }),
    });
    expect(renamed.statusCode).toBe(403);
    expect((await ok('GET', '/api/v0/admin/scim/pending-renames', { key: owner })).renames).toHaveLength(1);
    await ok('POST', `/api/v0/admin/users/${org.users.owner.id}/confirm-rename`, { key: owner });
    expect((await call('POST', `/api/v0/admin/users/${org.users.owner.id}/confirm-rename`, { key: owner })).status).toBe(404);
    // A name under .invalid never resolves (RFC 2606): accepted while configuring, refused at sign-in.
    const provider = { issuer: 'https://login.invalid', clientId: 'agentmeter', clientSecret: 'secret', provision: 'none' };
    expect(
      (await call('PUT', '/api/v0/organization/oidc', { key: owner, body: { ...provider, issuer: 'http://login.invalid' } })).status,
    ).toBe(400);
    await ok('PUT', '/api/v0/organization/oidc', { key: owner, body: provider });
    expect((await ok('GET', '/api/v0/organization/oidc', { key: owner })).provider.issuer).toBe(provider.issuer);
    expect((await ok('GET', `/auth/oidc/${org.orgId}`)).oidc).toBe(true);
    expect((await call('GET', '/auth/oidc/nope')).status).toBe(400);
    expect((await call('GET', `/auth/oidc/${org.orgId}/login`)).status).toBe(502);
    expect((await call('GET', '/auth/oidc/callback?code=c&state=s')).status).toBe(400);
    await ok('DELETE', '/api/v0/organization/oidc', { key: owner });
    expect((await call('GET', `/auth/oidc/${org.orgId}/login`)).status).toBe(404);
  });

  it("pull requests: the code hosts' secrets and their webhooks", async () => {
    const owner = org.users.owner.key;
    const secret = 'contract-webhook-secret-01';
    await ok('PUT', '/api/v0/organization/codehosts/github', { key: owner, body: { secret } });
    await ok('PUT', '/api/v0/organization/codehosts/gitlab', { key: owner, body: { secret } });
    expect((await ok('GET', '/api/v0/organization/codehosts', { key: owner })).codehosts).toHaveLength(2);
    const ping = JSON.stringify({ zen: 'Design for failure.' });
    const github = (signature: string) => ({
      body: ping,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'ping',
        'x-github-delivery': 'contract-1',
        'x-hub-signature-256': signature,
      },
    });
    await ok('POST', `/api/v1/hooks/github/${org.orgId}`, github(githubSignature(secret, ping)), 202);
    await ok('POST', `/api/v1/hooks/github/${org.orgId}`, github(githubSignature(secret, ping)), 200);
    expect((await call('POST', `/api/v1/hooks/github/${org.orgId}`, github('sha256=00'))).status).toBe(401);
    const gitlab = { 'content-type': 'application/json', 'x-gitlab-event': 'Push Hook', 'x-gitlab-event-uuid': 'contract-2' };
    await ok('POST', `/api/v1/hooks/gitlab/${org.orgId}`, { body: '{}', headers: { ...gitlab, 'x-gitlab-token': secret } }, 202);
    expect((await call('POST', `/api/v1/hooks/gitlab/${org.orgId}`, { body: '{}', headers: gitlab })).status).toBe(401);
    await ok('DELETE', '/api/v0/organization/codehosts/gitlab', { key: owner });
    const prs = await ok('GET', '/api/v1/analytics/pull_requests?startDate=2026-03-01&endDate=2026-03-02', { key: owner });
    expect(prs.data).toHaveLength(2);
    await ok('GET', '/api/v1/analytics/pull_requests?startDate=2026-03-01&endDate=2026-03-02&group_by=repo', { key: owner });
    expect((await call('GET', '/api/v1/analytics/pull_requests?startDate=2026-03-01', { key: owner })).status).toBe(400);
    expect(
      (await ok('GET', '/api/v0/code/pull_requests?startDate=2026-03-01&endDate=2026-03-20', { key: org.users.member.key })).data,
    ).toEqual([]);
  });

  it('every answer conformed, and every operation of the document was exercised', () => {
    expect(problems).toEqual([]);
    expect(contract.unexercised()).toEqual([]);
  });

  it('the check finds an answer that does not conform', () => {
    const wrong = contract.problems('GET', '/healthz', 200, 'application/json', JSON.stringify({ status: 'ok', extra: 1 }));
    expect(wrong.join('\n')).toContain('additional');
    expect(contract.problems('GET', '/healthz', 418, 'application/json', '{}')[0]).toContain('status 418 is not documented');
  });
});
