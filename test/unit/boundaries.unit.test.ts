// The layout is the architecture: hooks/ holds the hook script only, api/ never imports the collector, the
// collector never imports the api, the computer agent only common/, common/ imports none of the stages,
// the dashboard (web/) only itself and common/ (pure modules both sides share, such as the CSV cell
// guard; Vite bundles them, so one that needs Node fails the dashboard's build), and nothing of the product imports bench/ or test/. A folder listed
// here that is missing or holds no sources fails: a moved folder must move its rule too, or the rule
// would pass on nothing.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

/** Folders inside a checked folder that hold no sources of it (build output, dependencies). */
const SKIPPED = new Set(['node_modules', 'dist', 'out']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return SKIPPED.has(name) ? [] : sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Every module of ours a source names (import, export … from, import(), import types), relative to the
 * root, and whether the build erases it: only a statement-level `import type`/`export type` is erased
 * (`import { type X }` stays as an import of the module under verbatimModuleSyntax).
 */
function ourImports(file: string, text = readFileSync(file, 'utf8')): { module: string; typeOnly: boolean }[] {
  const found: { spec: string; typeOnly: boolean }[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier))
      found.push({ spec: node.moduleSpecifier.text, typeOnly: node.importClause?.isTypeOnly ?? false });
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
      found.push({ spec: node.moduleSpecifier.text, typeOnly: node.isTypeOnly });
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
      found.push({ spec: node.argument.literal.text, typeOnly: true });
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [spec] = node.arguments;
      if (spec && ts.isStringLiteralLike(spec)) found.push({ spec: spec.text, typeOnly: false });
      // A path built from a template (`./${agent}/index.ts`) names every file it can match: `*` for each part.
      else if (spec && ts.isTemplateExpression(spec))
        found.push({ spec: spec.head.text + spec.templateSpans.map((part) => `*${part.literal.text}`).join(''), typeOnly: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS));
  return found
    .filter(({ spec }) => spec.startsWith('.'))
    .map(({ spec, typeOnly }) => ({ module: relative(ROOT, resolve(dirname(file), spec)), typeOnly }));
}

const RULES: Record<string, string[]> = {
  // package.json: the version (common/version.ts), which the laptop bundle must carry inside itself.
  common: ['common', 'package.json'],
  collector: ['collector', 'common'],
  pipeline: ['pipeline', 'common'],
  api: ['api', 'common', 'pipeline'],
  readiness: ['readiness', 'common'],
  computer: ['computer', 'common'],
  // The dashboard runs in the browser: it talks to the server over HTTP only.
  web: ['web', 'common'],
  // The CLI wires every stage to its commands; it never reaches into the tests or the benchmarks.
  cli: ['cli', 'api', 'collector', 'common', 'computer', 'package.json', 'pipeline', 'readiness', 'sample-data'],
  // The sample goes through the real hook, collector, store and batch.
  'sample-data': ['sample-data', 'api', 'collector', 'common', 'pipeline'],
  // The benchmarks may use everything, the test helpers and the build scripts included.
  bench: ['bench', 'api', 'collector', 'common', 'pipeline', 'scripts', 'test', 'cli', 'sample-data', 'web'],
};

// The dashboard names the API's answers by the server's own zod schemas (web/src/api-types.ts): with
// `import type` only, which Vite erases, so no server code reaches the bundle; and only of the modules
// that hold schemas, so a page cannot reach into a store or a route through a type either.
const isSchemaModule = (module: string) => /^api\/(?:[^/]+\/)+schema\.ts$/.test(module);
/** What a folder may import with `import type` only, beyond its rule. */
const TYPE_ONLY: Record<string, (module: string) => boolean> = { web: isSchemaModule };

// An agent's sample (collector/agents/<agent>/sample.ts, and the Claude-style one two agents share) is the
// demo organization's part of its folder: it may draw on sample-data/ (the plan's shapes, the random
// stream), and only the sample modules may import it, so the collector itself never loads one.
const isAgentSample = (module: string) => /^collector\/agents\/(?:[^/]+\/sample|claude-style-sample)\.ts$/.test(module);

// An agent's OpenTelemetry names (collector/agents/<agent>/otel.ts) are data that both receivers read, the
// server's too: common/otel loads them, so they may import only common/.
const isAgentOtel = (module: string) => /^collector\/agents\/[^/]+\/otel\.ts$/.test(module);

/** A file's imports its folder's rule refuses, as `file → what`. */
function offendersIn(folder: string, file: string, text?: string): string[] {
  const sample = isAgentSample(relative(ROOT, file));
  const otel = isAgentOtel(relative(ROOT, file));
  const allowed = otel ? RULES['common']! : sample ? [...(RULES[folder] ?? []), 'sample-data'] : (RULES[folder] ?? []);
  return ourImports(file, text).flatMap(({ module, typeOnly }) => {
    const top = module.split('/')[0]!;
    if (folder === 'common' && isAgentOtel(module)) return [];
    if (folder === 'collector' && !sample && isAgentSample(module))
      return [`${relative(ROOT, file)} → ${module} (only the sample loads it)`];
    if (allowed.includes(top) || (typeOnly && TYPE_ONLY[folder]?.(module))) return [];
    const why = TYPE_ONLY[folder]?.(module) ? ' (a value import: only `import type` is erased from the build)' : '';
    return [`${relative(ROOT, file)} → ${TYPE_ONLY[folder] && why ? module : `${top}/`}${why}`];
  });
}

describe('module boundaries', () => {
  for (const [folder, allowed] of Object.entries(RULES)) {
    it(`${folder}/ imports only ${allowed.join(', ')}`, () => {
      expect(existsSync(join(ROOT, folder)), `${folder}/ is missing: move its rule with it`).toBe(true);
      const files = sources(join(ROOT, folder));
      expect(files.length, `${folder}/ holds no TypeScript sources`).toBeGreaterThan(0);
      expect(files.flatMap((file) => offendersIn(folder, file))).toEqual([]);
    });
  }

  it('hooks/ holds the hook script only (the installer that copies it is collector/install/)', () => {
    expect(readdirSync(join(ROOT, 'hooks'))).toEqual(['agentmeter-hook.sh']);
  });

  it("web/ may import only the types of the API's schema modules, never their values", () => {
    const probe = join(ROOT, 'web/src/probe.ts');
    const check = (text: string) => offendersIn('web', probe, text);
    expect(check("import type { TokensResponse } from '../../api/analytics/schema.ts';")).toEqual([]);
    expect(check("export type { Me } from '../../api/signin/schema.ts';")).toEqual([]);
    expect(check("import { TokensResponse } from '../../api/analytics/schema.ts';")).toEqual([
      'web/src/probe.ts → api/analytics/schema.ts (a value import: only `import type` is erased from the build)',
    ]);
    expect(check("import { type TokensResponse } from '../../api/analytics/schema.ts';")).toHaveLength(1);
    expect(check("import '../../api/analytics/schema.ts';")).toHaveLength(1);
    expect(check("const schema = await import('../../api/analytics/schema.ts');")).toHaveLength(1);
    expect(check("import type { TokenRow } from '../../api/analytics/store.ts';")).toEqual(['web/src/probe.ts → api/']);
    expect(check("type Row = import('../../api/analytics/store.ts').TokenRow;")).toEqual(['web/src/probe.ts → api/']);
    expect(check("import type { Db } from '../../pipeline/batch.ts';")).toEqual(['web/src/probe.ts → pipeline/']);
  });

  it("an agent's sample may draw on sample-data/, and nothing of the collector loads a sample", () => {
    const check = (file: string, text: string) => offendersIn('collector', join(ROOT, file), text);
    expect(check('collector/agents/codex/sample.ts', "import { pick } from '../../../sample-data/random.ts';")).toEqual([]);
    expect(check('collector/agents/codex/index.ts', "import { pick } from '../../../sample-data/random.ts';")).toEqual([
      'collector/agents/codex/index.ts → sample-data/',
    ]);
    expect(check('collector/agents/codex/index.ts', "import { codexSample } from './sample.ts';")).toEqual([
      'collector/agents/codex/index.ts → collector/agents/codex/sample.ts (only the sample loads it)',
    ]);
  });

  it("an agent's part loaded by its name is seen as every agent's; its OpenTelemetry names are common's to load", () => {
    const check = (folder: string, file: string, text: string) => offendersIn(folder, join(ROOT, file), text);
    /** The source of an import whose path is a template over the agent's name. */
    const byName = (before: string, after: string) => `await import(\`${before}\${agent}${after}\`);`;
    expect(check('collector', 'collector/agents/index.ts', byName('./', '/index.ts'))).toEqual([]);
    expect(check('collector', 'collector/agents/index.ts', byName('./', '/sample.ts'))).toEqual([
      'collector/agents/index.ts → collector/agents/*/sample.ts (only the sample loads it)',
    ]);
    expect(check('common', 'common/otel/agents.ts', byName('../../collector/agents/', '/otel.ts'))).toEqual([]);
    expect(check('common', 'common/otel/agents.ts', byName('../../collector/agents/', '/index.ts'))).toEqual([
      'common/otel/agents.ts → collector/',
    ]);
    expect(check('collector', 'collector/agents/codex/otel.ts', "import { x } from '../../state.ts';")).toEqual([
      'collector/agents/codex/otel.ts → collector/',
    ]);
    expect(
      check('collector', 'collector/agents/codex/otel.ts', "import type { OtelAgent } from '../../../common/otel/agents.ts';"),
    ).toEqual([]);
  });

  it('every folder of sources has a rule', () => {
    const withSources = readdirSync(ROOT).filter(
      (name) =>
        !name.startsWith('.') &&
        !['node_modules', 'dist', 'test', 'scripts', 'docs', 'data'].includes(name) &&
        statSync(join(ROOT, name)).isDirectory() &&
        sources(join(ROOT, name)).length > 0,
    );
    expect(withSources.filter((name) => !(name in RULES))).toEqual([]);
  });
});
