// A deterministic agent-readiness evaluator: inspects a local git repository (files only; it runs nothing
// of the repository's) and writes a report in the reference's shape. Criteria are grouped in pillars and
// levels; per-application criteria are judged in each application of a monorepo (numerator = applications
// that pass), repository-wide ones once. Level N needs 80% of the criteria of level N-1 (and so on below).
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { ReadinessReport } from '../common/readiness.ts';
import { LOCAL_REPO_PREFIX, shareableRepoUrl } from '../common/repo-id.ts';

export type Pillar =
  | 'style and validation'
  | 'build'
  | 'testing'
  | 'documentation'
  | 'development environment'
  | 'observability'
  | 'security'
  | 'task discovery';

/** What a criterion looks at: an application folder, or the repository root. */
export interface Scope {
  root: string;
  dir: string;
  /** All files below dir (relative paths), skipping dependencies and build output. */
  files: string[];
  manifest: Record<string, unknown> | undefined;
}

export interface Criterion {
  id: string;
  pillar: Pillar;
  level: 1 | 2 | 3 | 4 | 5;
  perApp: boolean;
  /** A passing check returns why it passes; a failing one returns undefined. */
  check: (scope: Scope) => string | undefined;
  /** Why it fails, when it does. */
  missing: string;
}

const has = (scope: Scope, ...names: string[]) => names.find((n) => existsSync(join(scope.dir, n)));
const matching = (scope: Scope, pattern: RegExp) => scope.files.find((f) => pattern.test(f));
const text = (path: string) => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
};
const deps = (scope: Scope): string[] => {
  const m = scope.manifest as { dependencies?: object; devDependencies?: object } | undefined;
  const pyproject = text(join(scope.dir, 'pyproject.toml')) + text(join(scope.dir, 'requirements.txt'));
  return [...Object.keys(m?.dependencies ?? {}), ...Object.keys(m?.devDependencies ?? {}), ...(pyproject.match(/[A-Za-z0-9_.-]+/g) ?? [])];
};
const script = (scope: Scope, name: string) => (scope.manifest as { scripts?: Record<string, string> } | undefined)?.scripts?.[name];
const found = (what: string) => (path: string | undefined) => (path ? `${what}: ${path}` : undefined);

export const CRITERIA: Criterion[] = [
  {
    id: 'readme',
    pillar: 'documentation',
    level: 1,
    perApp: false,
    missing: 'no README at the repository root',
    check: (s) => found('README')(has(s, 'README.md', 'README', 'README.rst', 'README.txt')),
  },
  {
    id: 'gitignore',
    pillar: 'security',
    level: 1,
    perApp: false,
    missing: 'no .gitignore',
    check: (s) => found('ignore file')(has(s, '.gitignore')),
  },
  {
    id: 'lockfile',
    pillar: 'build',
    level: 1,
    perApp: true,
    missing: 'no dependency lockfile in the application or at the root',
    check: (s) => {
      const names = [
        'package-lock.json',
        'pnpm-lock.yaml',
        'yarn.lock',
        'bun.lockb',
        'Cargo.lock',
        'go.sum',
        'poetry.lock',
        'uv.lock',
        'Pipfile.lock',
        'Gemfile.lock',
        'composer.lock',
      ];
      return found('lockfile')(has(s, ...names) ?? names.find((n) => existsSync(join(s.root, n))));
    },
  },
  {
    id: 'build_command',
    pillar: 'build',
    level: 1,
    perApp: true,
    missing: 'no build command (package.json "build" script, Makefile, Cargo.toml, go.mod, or a pyproject build system)',
    check: (s) =>
      script(s, 'build')
        ? 'package.json has a "build" script'
        : found('build definition')(
            has(s, 'Makefile', 'Cargo.toml', 'go.mod', 'build.gradle', 'pom.xml') ??
              (/\[build-system\]/.test(text(join(s.dir, 'pyproject.toml'))) ? 'pyproject.toml' : undefined),
          ),
  },
  {
    id: 'linter',
    pillar: 'style and validation',
    level: 2,
    perApp: true,
    missing: 'no linter configured',
    check: (s) =>
      found('linter config')(
        has(
          s,
          'eslint.config.js',
          'eslint.config.mjs',
          'eslint.config.ts',
          '.eslintrc',
          '.eslintrc.json',
          '.eslintrc.js',
          '.eslintrc.cjs',
          'biome.json',
          '.golangci.yml',
          '.golangci.yaml',
          '.rubocop.yml',
          'ruff.toml',
          '.flake8',
          'clippy.toml',
        ) ??
          (/\[tool\.(ruff|flake8|pylint)\]/.test(text(join(s.dir, 'pyproject.toml'))) ? 'pyproject.toml' : undefined) ??
          (script(s, 'lint') ? 'package.json "lint" script' : undefined),
      ),
  },
  {
    id: 'unit_tests',
    pillar: 'testing',
    level: 2,
    perApp: true,
    missing: 'no unit test files',
    check: (s) =>
      found('test file')(matching(s, /(^|\/)(test_[^/]+\.py|[^/]+_test\.(go|py)|[^/]+\.(test|spec)\.[cm]?[jt]sx?|[^/]+Test\.(java|kt))$/)),
  },
  {
    id: 'ci',
    pillar: 'task discovery',
    level: 2,
    perApp: false,
    missing: 'no CI configuration',
    check: (s) =>
      found('CI')(
        matching(s, /^\.github\/workflows\/[^/]+\.ya?ml$/) ??
          has(s, '.gitlab-ci.yml', '.circleci/config.yml', 'azure-pipelines.yml', 'Jenkinsfile', '.buildkite/pipeline.yml'),
      ),
  },
  {
    id: 'formatter',
    pillar: 'style and validation',
    level: 2,
    perApp: false,
    missing: 'no formatter or editor configuration',
    check: (s) =>
      found('formatter config')(
        has(s, '.prettierrc', '.prettierrc.json', 'prettier.config.js', '.editorconfig', 'rustfmt.toml', '.rustfmt.toml', 'biome.json') ??
          (/\[tool\.black\]/.test(text(join(s.dir, 'pyproject.toml'))) ? 'pyproject.toml' : undefined),
      ),
  },
  {
    id: 'type_checker',
    pillar: 'style and validation',
    level: 3,
    perApp: true,
    missing: 'no type checker configured',
    check: (s) =>
      found('type checking')(
        has(s, 'tsconfig.json', 'mypy.ini', 'pyrightconfig.json', 'go.mod', 'Cargo.toml') ??
          (/\[tool\.(mypy|pyright)\]/.test(text(join(s.dir, 'pyproject.toml'))) ? 'pyproject.toml' : undefined),
      ),
  },
  {
    id: 'test_command',
    pillar: 'testing',
    level: 3,
    perApp: true,
    missing: 'no test command (package.json "test" script, a Makefile test target, pytest or cargo/go conventions)',
    check: (s) =>
      script(s, 'test') && !/no test specified/.test(script(s, 'test')!)
        ? 'package.json has a "test" script'
        : /^test:/m.test(text(join(s.dir, 'Makefile')))
          ? 'Makefile has a test target'
          : found('test runner')(
              has(s, 'pytest.ini', 'go.mod', 'Cargo.toml') ??
                (/\[tool\.pytest/.test(text(join(s.dir, 'pyproject.toml'))) ? 'pyproject.toml' : undefined),
            ),
  },
  {
    id: 'agents_md',
    pillar: 'documentation',
    level: 3,
    perApp: false,
    missing: 'no AGENTS.md (instructions for coding agents)',
    check: (s) => found('agent instructions')(has(s, 'AGENTS.md', 'CLAUDE.md', '.github/copilot-instructions.md')),
  },
  {
    id: 'pre_commit_hooks',
    pillar: 'style and validation',
    level: 3,
    perApp: false,
    missing: 'no pre-commit hooks',
    check: (s) => found('pre-commit hooks')(has(s, '.pre-commit-config.yaml', '.husky', 'lefthook.yml', '.lefthook.yml')),
  },
  {
    id: 'codeowners',
    pillar: 'security',
    level: 3,
    perApp: false,
    missing: 'no CODEOWNERS',
    check: (s) => found('code owners')(has(s, 'CODEOWNERS', '.github/CODEOWNERS', 'docs/CODEOWNERS')),
  },
  {
    id: 'dependency_update_bot',
    pillar: 'security',
    level: 4,
    perApp: false,
    missing: 'no dependency update bot',
    check: (s) =>
      found('dependency updates')(
        has(
          s,
          '.github/dependabot.yml',
          '.github/dependabot.yaml',
          'renovate.json',
          '.github/renovate.json',
          '.renovaterc',
          '.renovaterc.json',
        ),
      ),
  },
  {
    id: 'dev_environment',
    pillar: 'development environment',
    level: 4,
    perApp: false,
    missing: 'no reproducible development environment (devcontainer, tool versions, Nix, Docker)',
    check: (s) =>
      found('development environment')(
        has(
          s,
          '.devcontainer',
          '.devcontainer.json',
          '.tool-versions',
          '.nvmrc',
          '.node-version',
          '.python-version',
          'flake.nix',
          'shell.nix',
          'Dockerfile',
          'docker-compose.yml',
          'compose.yaml',
        ),
      ),
  },
  {
    id: 'env_example',
    pillar: 'development environment',
    level: 4,
    perApp: false,
    missing: 'no example environment file',
    check: (s) => found('example environment')(has(s, '.env.example', '.env.sample', '.env.template')),
  },
  {
    id: 'structured_logging',
    pillar: 'observability',
    level: 4,
    perApp: true,
    missing: 'no structured logging or tracing library',
    check: (s) => {
      const known = [
        'pino',
        'winston',
        'bunyan',
        '@opentelemetry/api',
        'structlog',
        'loguru',
        'opentelemetry-api',
        'zap',
        'zerolog',
        'tracing',
        'slog',
      ];
      const hit =
        deps(s).find((d) => known.includes(d)) ??
        (/go\.uber\.org\/zap|rs\/zerolog|log\/slog/.test(text(join(s.dir, 'go.mod'))) ? 'go logging module' : undefined);
      return hit ? `depends on ${hit}` : undefined;
    },
  },
  {
    id: 'security_policy',
    pillar: 'security',
    level: 5,
    perApp: false,
    missing: 'no SECURITY.md',
    check: (s) => found('security policy')(has(s, 'SECURITY.md', '.github/SECURITY.md')),
  },
  {
    id: 'issue_templates',
    pillar: 'task discovery',
    level: 5,
    perApp: false,
    missing: 'no issue templates',
    check: (s) => found('issue templates')(has(s, '.github/ISSUE_TEMPLATE', '.github/issue_template.md', '.gitlab/issue_templates')),
  },
  {
    id: 'contributing',
    pillar: 'documentation',
    level: 5,
    perApp: false,
    missing: 'no CONTRIBUTING guide',
    check: (s) => found('contributing guide')(has(s, 'CONTRIBUTING.md', '.github/CONTRIBUTING.md', 'docs/CONTRIBUTING.md')),
  },
];

const SKIP = new Set(['node_modules', '.git', 'dist', 'build', 'target', 'vendor', '.venv', 'venv', '__pycache__', '.next', 'coverage']);
const MANIFESTS = ['package.json', 'pyproject.toml', 'go.mod', 'Cargo.toml', 'pom.xml', 'build.gradle'];

function listFiles(dir: string, base = dir, out: string[] = [], limit = 50_000): string[] {
  for (const name of readdirSync(dir).sort()) {
    if (SKIP.has(name) || out.length >= limit) continue;
    const path = join(dir, name);
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory()) listFiles(path, base, out, limit);
    else out.push(relative(base, path));
  }
  return out;
}

function manifestOf(dir: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** The applications of a repository: folders under apps/, packages/, services/, libs/ with a manifest; else the root. */
export function findApps(files: string[]): string[] {
  const apps = [
    ...new Set(
      files
        .filter((f) => /^(apps|packages|services|libs)\/[^/]+\/[^/]+$/.test(f) && MANIFESTS.includes(f.split('/')[2]!))
        .map((f) => f.split('/').slice(0, 2).join('/')),
    ),
  ].sort();
  return apps.length ? apps : ['.'];
}

function describeApp(root: string, app: string): string {
  const dir = join(root, app);
  const manifest = manifestOf(dir);
  if (typeof manifest?.['description'] === 'string' && manifest['description']) return manifest['description'];
  const kind = MANIFESTS.find((m) => existsSync(join(dir, m)));
  return `${app === '.' ? 'the repository' : app}${kind ? ` (${kind})` : ''}`;
}

function git(root: string, ...args: string[]): string | undefined {
  try {
    return execFileSync('git', ['-C', root, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

/**
 * What a repository without a shareable remote (none, or a local folder) is called in its report: never
 * its path. "local:" and its first commit, the same in every clone, so that its reports group together;
 * "local:no-commits" before the first commit.
 */
function localRepoName(root: string): string {
  const first = git(root, 'rev-list', '--max-parents=0', 'HEAD')?.split('\n').sort()[0];
  return `${LOCAL_REPO_PREFIX}${first && /^[0-9a-f]{7,64}$/.test(first) ? first : 'no-commits'}`;
}

/** Pure: the level from per-level pass rates. Level 1 is the floor; level N needs 80% at N-1. */
export function levelOf(report: ReadinessReport['report'], criteria = CRITERIA): number {
  let level = 1;
  for (let next = 2; next <= 5; next++) {
    const below = criteria.filter((c) => c.level === next - 1 && report[c.id]);
    const rate = below.reduce((a, c) => a + report[c.id]!.numerator / report[c.id]!.denominator, 0) / Math.max(1, below.length);
    if (rate < 0.8) break;
    level = next;
  }
  return level;
}

export interface Evaluation {
  report: ReadinessReport;
  level: number;
}

export function evaluate(root: string, options: { agentVersion: string; now?: number }): Evaluation {
  const files = listFiles(root);
  const apps = findApps(files);
  const rootScope: Scope = { root, dir: root, files, manifest: manifestOf(root) };
  const result: ReadinessReport['report'] = {};
  for (const criterion of CRITERIA) {
    const scopes = criterion.perApp
      ? apps.map((app) => ({
          root,
          dir: join(root, app),
          files: app === '.' ? files : files.filter((f) => f.startsWith(`${app}/`)).map((f) => f.slice(app.length + 1)),
          manifest: manifestOf(join(root, app)),
        }))
      : [rootScope];
    const outcomes = scopes.map((scope, i) => ({ app: criterion.perApp ? apps[i]! : '.', why: criterion.check(scope) }));
    const passing = outcomes.filter((o) => o.why);
    const rationale = criterion.perApp
      ? outcomes.map((o) => `${o.app}: ${o.why ?? criterion.missing}`).join('; ')
      : (passing[0]?.why ?? criterion.missing);
    result[criterion.id] = { numerator: passing.length, denominator: scopes.length, rationale };
  }
  const remote = git(root, 'remote', 'get-url', 'origin');
  const shareable = remote === undefined ? undefined : shareableRepoUrl(remote);
  const commit = git(root, 'rev-parse', 'HEAD');
  const branch = git(root, 'rev-parse', '--abbrev-ref', 'HEAD');
  const status = git(root, 'status', '--porcelain');
  const upstream = git(root, 'rev-parse', '--abbrev-ref', '@{upstream}');
  const unpushed = upstream ? Number(git(root, 'rev-list', '--count', '@{upstream}..HEAD') ?? '0') > 0 : Boolean(commit);
  const report: ReadinessReport = {
    reportId: randomUUID(),
    createdAt: options.now ?? Date.now(),
    repoUrl: shareable ?? localRepoName(root),
    apps: Object.fromEntries(apps.map((app) => [app, { description: describeApp(root, app) }])),
    report: result,
    ...(commit ? { commitHash: commit } : {}),
    ...(branch && branch !== 'HEAD' ? { branch } : {}),
    ...(status !== undefined ? { hasLocalChanges: status !== '' } : {}),
    ...(commit ? { hasNonRemoteCommits: unpushed } : {}),
    agentVersion: options.agentVersion,
  };
  return { report, level: levelOf(result) };
}

/** The summary printed for people: the level, then each pillar's criteria. */
export function summarize(evaluation: Evaluation): string {
  const lines = [`readiness level ${evaluation.level} of 5 for ${evaluation.report.repoUrl}`];
  for (const pillar of [...new Set(CRITERIA.map((c) => c.pillar))]) {
    lines.push(`  ${pillar}`);
    for (const c of CRITERIA.filter((x) => x.pillar === pillar)) {
      const r = evaluation.report.report[c.id]!;
      lines.push(
        `    ${r.numerator === r.denominator ? 'pass' : r.numerator > 0 ? 'part' : 'fail'}  L${c.level} ${c.id} (${r.numerator}/${r.denominator}): ${r.rationale}`,
      );
    }
  }
  return lines.join('\n');
}
