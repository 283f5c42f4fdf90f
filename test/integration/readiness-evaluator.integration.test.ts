// The evaluator on fixture repositories made here with real git: a bare one, and a well-equipped monorepo
// with one application better equipped than the other. Expected criteria are written out by hand.
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadinessReport } from '../../common/readiness.ts';
import { repoId } from '../../common/repo-id.ts';
import { CRITERIA, evaluate, levelOf } from '../../readiness/evaluator.ts';
import { runCli, runCliAsync } from '../helpers/processes.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

function repo(files: Record<string, string>, uncommitted: Record<string, string> = {}): string {
  const dir = tempDir('readiness-');
  const write = (all: Record<string, string>) => {
    for (const [path, content] of Object.entries(all)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
  };
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', dir, ...args], {
      stdio: 'ignore',
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e.x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e.x' },
    });
  git('init', '-q', '-b', 'main');
  write(files);
  git('add', '-A');
  git('commit', '-q', '-m', 'fixture');
  write(uncommitted);
  return dir;
}

const score = (report: ReadinessReport) =>
  Object.fromEntries(Object.entries(report.report).map(([id, r]) => [id, `${r.numerator}/${r.denominator}`]));

let server: TestServer;
beforeAll(async () => {
  server = await testServer();
});
afterAll(() => server.close());

describe('readiness evaluator', () => {
  it('a bare repository: level 1, nearly every criterion failing, git facts read', () => {
    const dir = repo({ 'main.py': 'print(1)\n' });
    const { report, level } = evaluate(dir, { agentVersion: '9.9.9', now: 1_780_000_000_000 });
    expect(ReadinessReport.parse(report)).toEqual(report);
    expect(level).toBe(1);
    expect(report.apps).toEqual({ '.': { description: 'the repository' } });
    expect(Object.keys(report.report).sort()).toEqual(CRITERIA.map((c) => c.id).sort());
    expect(Object.values(score(report)).every((s) => s === '0/1')).toBe(true);
    expect(report.report['readme']!.rationale).toBe('no README at the repository root');
    expect(report).toMatchObject({
      repoUrl: `local:${report.commitHash}`,
      branch: 'main',
      hasLocalChanges: false,
      hasNonRemoteCommits: true,
      agentVersion: '9.9.9',
      createdAt: 1_780_000_000_000,
    });
    expect(report.commitHash).toMatch(/^[0-9a-f]{40}$/);
  });

  it('a well-equipped monorepo: per-application numerators, level 2 (L1 100%, L2 75%)', async () => {
    const dir = repo(
      {
        'README.md': '# mono\n',
        'AGENTS.md': 'Run npm test.\n',
        'CONTRIBUTING.md': 'PRs welcome\n',
        'SECURITY.md': 'Report to security@\n',
        '.gitignore': 'node_modules\n.env\n',
        '.editorconfig': 'root = true\n',
        '.nvmrc': '20\n',
        '.env.example': 'API_URL=\n',
        'package-lock.json': '{}\n',
        '.husky/pre-commit': 'npm test\n',
        '.github/workflows/ci.yml': 'on: push\n',
        '.github/CODEOWNERS': '* @acme/devs\n',
        '.github/dependabot.yml': 'version: 2\n',
        '.github/ISSUE_TEMPLATE/bug.md': 'Bug\n',
        'packages/web/package.json': JSON.stringify({
          description: 'The web front end',
          scripts: { build: 'vite build', test: 'vitest', lint: 'eslint .' },
          dependencies: { pino: '^10' },
        }),
        'packages/web/tsconfig.json': '{}\n',
        'packages/web/eslint.config.js': 'export default [];\n',
        'packages/web/src/app.test.ts': 'test\n',
        'packages/api/package.json': JSON.stringify({ scripts: { build: 'tsc', test: 'echo "Error: no test specified" && exit 1' } }),
      },
      { 'packages/api/notes.txt': 'uncommitted\n' },
    );
    execFileSync('git', ['-C', dir, 'remote', 'add', 'origin', 'git@github.com:acme/mono.git']);
    const { report, level } = evaluate(dir, { agentVersion: '0.1.0' });
    expect(report.apps).toEqual({
      'packages/api': { description: 'packages/api (package.json)' },
      'packages/web': { description: 'The web front end' },
    });
    expect(score(report)).toEqual({
      readme: '1/1',
      gitignore: '1/1',
      lockfile: '2/2',
      build_command: '2/2',
      linter: '1/2',
      unit_tests: '1/2',
      ci: '1/1',
      formatter: '1/1',
      type_checker: '1/2',
      test_command: '1/2',
      agents_md: '1/1',
      pre_commit_hooks: '1/1',
      codeowners: '1/1',
      dependency_update_bot: '1/1',
      dev_environment: '1/1',
      env_example: '1/1',
      structured_logging: '1/2',
      security_policy: '1/1',
      issue_templates: '1/1',
      contributing: '1/1',
    });
    expect(report.report['linter']!.rationale).toBe('packages/api: no linter configured; packages/web: linter config: eslint.config.js');
    expect(level).toBe(2);
    expect(report).toMatchObject({ repoUrl: 'github.com:acme/mono.git', hasLocalChanges: true, hasNonRemoteCommits: true });

    // The report is accepted by the upload route, under the repository's id.
    const org = await server.seedOrg('Readiness');
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/organization/maturity-level-reports',
      headers: bearer(org.users.member.key),
      payload: report,
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ repoId: repoId('https://github.com/acme/mono'), report: { reportId: report.reportId } });
  });

  it('the level rule: a level needs 80% of the criteria of the level below', () => {
    const all = (value: number) => Object.fromEntries(CRITERIA.map((c) => [c.id, { numerator: value, denominator: 1, rationale: '' }]));
    expect(levelOf(all(1))).toBe(5);
    expect(levelOf(all(0))).toBe(1);
    const l1 = CRITERIA.filter((c) => c.level === 1).map((c) => c.id);
    const partial = { ...all(1), [l1[0]!]: { numerator: 0, denominator: 1, rationale: '' } }; // L1 at 75%
    expect(levelOf(partial)).toBe(1);
  });

  it('agentmeter readiness evaluate prints the summary and writes the JSON report', () => {
    const dir = repo({ 'README.md': '# x\n' });
    const out = join(tempDir(), 'report.json');
    const result = runCli(['readiness', 'evaluate', dir, '--out', out]);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^readiness level 1 of 5 for local:[0-9a-f]{40}\n/);
    expect(result.stdout).toContain('pass  L1 readme (1/1): README: README.md');
    expect(ReadinessReport.parse(JSON.parse(readFileSync(out, 'utf8'))).report['readme']!.numerator).toBe(1);
    // 0600 whatever the umask, and a link at the name is replaced, never written through.
    expect(lstatSync(out).mode & 0o777).toBe(0o600);
    const victim = join(tempDir(), 'victim.json');
    writeFileSync(victim, 'untouched');
    const linked = join(tempDir(), 'linked.json');
    symlinkSync(victim, linked);
    expect(runCli(['readiness', 'evaluate', dir, '--out', linked]).status).toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('untouched');
    expect(lstatSync(linked).isSymbolicLink()).toBe(false);
  });

  it('never ships a credential, query, fragment or local path in repoUrl; the server refuses them (issue #20)', async () => {
    const git = (dir: string, ...args: string[]) => execFileSync('git', ['-C', dir, ...args], { stdio: 'ignore' });
    const token = 'ghs_0123456789abcdefSECRET';
    const withToken = repo({ 'README.md': '# x\n' });
    git(withToken, 'remote', 'add', 'origin', `https://x-access-token:${token}@github.com/acme/app.git?ref=1#frag`);
    const clone = repo({ 'README.md': '# y\n' });
    git(clone, 'remote', 'add', 'origin', withToken);
    const fileRemote = repo({ 'README.md': '# z\n' });
    git(fileRemote, 'remote', 'add', 'origin', `file://${withToken}`);

    const tokenReport = evaluate(withToken, { agentVersion: '1.0.0' }).report;
    expect(tokenReport.repoUrl).toBe('https://github.com/acme/app.git');
    expect(JSON.stringify(tokenReport)).not.toContain(token);
    for (const dir of [clone, fileRemote]) {
      const report = evaluate(dir, { agentVersion: '1.0.0' }).report;
      expect(report.repoUrl).toBe(`local:${report.commitHash}`);
      expect(JSON.stringify(report)).not.toContain(dir);
      expect(JSON.stringify(report)).not.toContain(withToken);
    }

    // What the CLI uploads: the evaluate --upload path, through a real server.
    const org = await server.seedOrg('ReadinessUpload');
    const address = await server.app.listen({ port: 0, host: '127.0.0.1' });
    const cli = await runCliAsync(['readiness', 'evaluate', withToken, '--upload', '--server', address, '--key', org.users.member.key]);
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout + cli.stderr).not.toContain(token);
    const stored = await server.db.all<{ report: string }>(
      'SELECT CAST(report AS VARCHAR) AS report FROM readiness_reports WHERE org_id = $org',
      {
        org: org.orgId,
      },
    );
    expect(stored).toHaveLength(1);
    expect(stored[0]!.report).not.toContain(token);
    expect(JSON.parse(stored[0]!.report).repoUrl).toBe('https://github.com/acme/app.git');

    // A report file written by another tool is cleaned the same way before it leaves; a local path is refused.
    const file = join(tempDir(), 'report.json');
    writeFileSync(file, JSON.stringify({ ...tokenReport, reportId: undefined, repoUrl: `https://u:${token}@github.com/acme/other.git#x` }));
    const uploaded = await runCliAsync(['readiness', 'upload', file, '--server', address, '--key', org.users.member.key]);
    expect(uploaded.status, uploaded.stderr).toBe(0);
    expect(uploaded.stderr).toContain('repoUrl uploaded as https://github.com/acme/other.git');
    writeFileSync(file, JSON.stringify({ ...tokenReport, reportId: undefined, repoUrl: `file://${withToken}` }));
    const local = await runCliAsync(['readiness', 'upload', file, '--server', address, '--key', org.users.member.key]);
    expect(local.status).toBe(1);
    expect(local.stderr).toMatch(/repoUrl must not name a local path/);
    const all = await server.db.all<{ report: string }>(
      'SELECT CAST(report AS VARCHAR) AS report FROM readiness_reports WHERE org_id = $org',
      {
        org: org.orgId,
      },
    );
    expect(all).toHaveLength(2);
    expect(all.map((r) => r.report).join('')).not.toContain(token);
  });
});
