import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorBodySchema } from '../../api/http/errors.ts';
import { READINESS_PATHS } from '../../api/readiness/schema.ts';
import { ReadinessList, ReadinessReport } from '../../common/readiness.ts';
import { normalizeRepoUrl, repoId } from '../../common/repo-id.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;
let other: Awaited<ReturnType<TestServer['seedOrg']>>;
const [PATH, NEW_PATH] = READINESS_PATHS;

const report = (overrides: Record<string, unknown> = {}) => ({
  repoUrl: 'https://github.com/acme/web-app',
  apps: { '.': { description: 'The web app' }, 'packages/api': { description: 'The API' } },
  report: {
    lint_config: { numerator: 2, denominator: 2, rationale: 'eslint.config.js in both applications' },
    unit_tests: { numerator: 1, denominator: 2, rationale: 'tests only in packages/api' },
  },
  commitHash: 'a1b2c3d4e5f6',
  branch: 'main',
  hasLocalChanges: false,
  hasNonRemoteCommits: true,
  modelUsed: { id: 'claude-sonnet-4-5', reasoningEffort: 'medium' },
  agentVersion: '0.1.0',
  ...overrides,
});

const post = (key: string, body: unknown, path: string = PATH) =>
  server.app.inject({ method: 'POST', url: path, headers: bearer(key), payload: body as object });
const list = (key: string, query = '', path: string = PATH) =>
  server.app.inject({ method: 'GET', url: `${path}${query}`, headers: bearer(key) });

beforeAll(async () => {
  server = await testServer();
  acme = await server.seedOrg('Acme');
  other = await server.seedOrg('Other');
});
afterAll(() => server.close());

describe('repository ids', () => {
  it('the same repository under any URL form gets the same id', () => {
    const forms = [
      'https://github.com/Acme/Web-App',
      'https://user:token@github.com/acme/web-app.git',
      'git@github.com:acme/web-app.git',
      'ssh://git@github.com:22/acme/web-app/',
      'github.com/acme/web-app',
    ];
    expect(new Set(forms.map(normalizeRepoUrl))).toEqual(new Set(['github.com/acme/web-app']));
    expect(new Set(forms.map(repoId)).size).toBe(1);
    expect(repoId('https://github.com/acme/other')).not.toBe(repoId(forms[0]!));
    expect(repoId(forms[0]!)).toMatch(/^repo_[0-9a-f]{16}$/);
  });
});

describe('readiness reports', () => {
  it('stores a report (members may upload) and lists it in the reference shape, on both paths', async () => {
    const res = await post(acme.users.member.key, report());
    expect(res.statusCode).toBe(201);
    const body = res.json() as { report: unknown; repoId: string };
    const stored = ReadinessReport.parse(body.report);
    expect(body.repoId).toBe(repoId('https://github.com/acme/web-app'));
    for (const path of [PATH, NEW_PATH]) {
      const listed = ReadinessList.parse((await list(acme.users.manager.key, '', path)).json());
      expect(listed.reports.find((r) => r.reportId === stored.reportId)).toEqual(stored);
      // Its figures, the server's (an agentmeter extension): 1 of 2 criteria met, score (2/2 + 1/2) / 2 = 0.75.
      expect(listed.summaries?.find((s) => s.reportId === stored.reportId)).toEqual({
        reportId: stored.reportId,
        criteria: 2,
        met: 1,
        score: 0.75,
      });
    }
  });

  it('rejects invalid reports with 400 and the error body', async () => {
    const bad: [Record<string, unknown>, string][] = [
      [report({ report: { x: { numerator: 3, denominator: 2, rationale: 'r' } } }), 'numerator must not exceed denominator'],
      [report({ report: { x: { numerator: 0, denominator: 0, rationale: 'r' } } }), 'denominator'],
      [report({ modelUsed: { id: 'm', reasoningEffort: 'extreme' } }), 'reasoningEffort'],
      [report({ surprise: true }), 'surprise'],
      [report({ repoUrl: '' }), 'repoUrl'],
      [report({ repoUrl: 'https://x-access-token:ghs_secret@github.com/acme/app.git' }), 'repoUrl must not carry userinfo'],
      [report({ repoUrl: 'https://github.com/acme/app.git?token=abc' }), 'repoUrl must not carry a query or fragment'],
      [report({ repoUrl: 'https://github.com/acme/app.git#main' }), 'repoUrl must not carry a query or fragment'],
      [report({ repoUrl: 'git@github.com:acme/app.git' }), 'repoUrl must not carry userinfo'],
      [report({ repoUrl: 'file:///home/alice/src/app' }), 'repoUrl must not name a local path'],
      [report({ repoUrl: '/home/alice/src/app' }), 'repoUrl must not name a local path'],
      [report({ reportId: 'not-a-uuid' }), 'reportId'],
      [report({ commitHash: 'zz' }), 'commitHash'],
    ];
    for (const [body, detail] of bad) {
      const res = await post(acme.users.owner.key, body);
      expect(res.statusCode).toBe(400);
      expect(ErrorBodySchema.parse(res.json()).detail).toContain(detail);
    }
    const id = randomUUID();
    expect((await post(acme.users.owner.key, report({ reportId: id }))).statusCode).toBe(201);
    expect((await post(acme.users.owner.key, report({ reportId: id }))).statusCode).toBe(409);
  });

  it('pages newest first with startAfter to the end, no skip or repeat even while reports arrive', async () => {
    const s = await testServer();
    const o = await s.seedOrg('Paging');
    const ids: string[] = [];
    // Ten reports, four sharing one createdAt: the reportId breaks the tie.
    for (let i = 0; i < 10; i++) {
      const res = await s.app.inject({
        method: 'POST',
        url: PATH,
        headers: bearer(o.users.member.key),
        payload: report({ createdAt: 1_780_000_000_000 + (i < 4 ? 0 : i) * 1000 }),
      });
      ids.push((res.json() as { report: { reportId: string } }).report.reportId);
    }
    const seen: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await s.app.inject({
        method: 'GET',
        url: `${PATH}?limit=3${after ? `&startAfter=${after}` : ''}`,
        headers: bearer(o.users.member.key),
      });
      const { reports } = ReadinessList.parse(res.json());
      if (reports.length === 0) break;
      seen.push(...reports.map((r) => r.reportId));
      after = reports.at(-1)!.reportId;
      // A newer report arriving mid-walk sorts before the cursor and so does not disturb the rest.
      if (page === 1)
        await s.app.inject({
          method: 'POST',
          url: PATH,
          headers: bearer(o.users.member.key),
          payload: report({ createdAt: 1_790_000_000_000 }),
        });
    }
    expect(seen).toHaveLength(10);
    expect(new Set(seen)).toEqual(new Set(ids));
    const created = seen.map((id) => ids.indexOf(id));
    expect(created.slice(0, 6)).toEqual([9, 8, 7, 6, 5, 4]);
    await s.close();
  });

  it('filters by repoId; 400 for bad parameters; guests 403; no credential 401; other organizations see nothing', async () => {
    await post(acme.users.owner.key, report({ repoUrl: 'github.com:acme/infra.git' }));
    const infra = ReadinessList.parse((await list(acme.users.owner.key, `?repoId=${repoId('https://github.com/acme/infra')}`)).json());
    expect(infra.reports.length).toBe(1);
    expect(infra.reports[0]!.repoUrl).toBe('github.com:acme/infra.git');
    for (const query of [
      '?limit=0',
      '?limit=101',
      '?limit=two',
      '?repoId=web-app',
      '?startAfter=nope',
      `?startAfter=${randomUUID()}`,
      '?cursor=x',
    ]) {
      const res = await list(acme.users.owner.key, query);
      expect(res.statusCode, query).toBe(400);
      ErrorBodySchema.parse(res.json());
    }
    expect((await list(acme.users.guest.key)).statusCode).toBe(403);
    expect((await post(acme.users.guest.key, report())).statusCode).toBe(403);
    expect((await server.app.inject({ method: 'GET', url: PATH })).statusCode).toBe(401);
    expect(ReadinessList.parse((await list(other.users.owner.key)).json()).reports).toEqual([]);
    const [acmeReport] = ReadinessList.parse((await list(acme.users.owner.key)).json()).reports;
    expect((await list(other.users.owner.key, `?startAfter=${acmeReport!.reportId}`)).statusCode).toBe(400);
  });
});

describe('migration 018 on reports stored before repoUrl was cleaned', () => {
  it('strips credentials, query and fragment and replaces local paths; clean reports and repository ids stay', async () => {
    const s = await testServer();
    const o = await s.seedOrg('Dirty');
    const rows = [
      [
        '11111111-1111-4111-8111-111111111111',
        'https://x-access-token:ghs_SECRET@github.com/acme/app.git?ref=main#top',
        'https://github.com/acme/app.git',
      ],
      ['22222222-2222-4222-8222-222222222222', 'file:///home/alice/src/secret-project', undefined],
      ['33333333-3333-4333-8333-333333333333', 'git@github.com:acme/infra.git', 'github.com:acme/infra.git'],
      ['44444444-4444-4444-8444-444444444444', 'https://github.com/acme/clean', 'https://github.com/acme/clean'],
    ] as const;
    for (const [id, url] of rows) {
      const stored = { ...report({ repoUrl: url }), reportId: id, createdAt: 1_780_000_000_000 };
      await s.db.run('INSERT INTO readiness_reports VALUES ($org, $id, $repo, $created, $user, $report)', {
        org: o.orgId,
        id,
        repo: repoId(url),
        created: stored.createdAt,
        user: o.users.member.id,
        report: JSON.stringify(stored),
      });
    }
    await s.db.run('DELETE FROM schema_migrations WHERE version = 18');
    const { migrate } = await import('../../common/db/duckdb.ts');
    expect(await migrate(s.db)).toEqual(['018_clean_readiness_repo_urls.ts']);
    const after = await s.db.all<{ report_id: string; repo_id: string; report: string }>(
      'SELECT report_id, repo_id, CAST(report AS VARCHAR) AS report FROM readiness_reports WHERE org_id = $org ORDER BY report_id',
      { org: o.orgId },
    );
    for (const [i, [id, url, expected]] of rows.entries()) {
      const row = after[i]!;
      expect(row.report_id).toBe(id);
      expect(row.repo_id).toBe(repoId(url));
      const stored = ReadinessReport.parse(JSON.parse(row.report));
      expect(stored.repoUrl).toBe(expected ?? `local:${repoId(url).slice('repo_'.length)}`);
      expect(stored.apps).toEqual(report().apps);
    }
    expect(after.map((r) => r.report).join('')).not.toMatch(/SECRET|alice|\?ref|#top/);
    // The listing (whose answers are validated) reads them all.
    const listed = await s.app.inject({ method: 'GET', url: PATH, headers: bearer(o.users.member.key) });
    expect(ReadinessList.parse(listed.json()).reports).toHaveLength(4);
    await s.close();
  });
});
