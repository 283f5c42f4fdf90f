// An edit's repository and .gitattributes exclusions on the collector (docs/metrics.md §5 "Edits",
// collector/code/edit-repo.ts): real git work trees (one with an origin carrying a credential, one
// without a remote, a folder outside any), the repository identity landed commits ship, files marked
// linguist-generated / linguist-vendored left out of what ships and of the ledger, and the origin read
// once per work tree and refresh period, not per event.
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EditRepos, originUrl, REFRESH_MS } from '../../collector/code/edit-repo.ts';
import { repoId } from '../../common/repo-id.ts';
import { tempDir } from '../helpers/tmp.ts';
import { callEditsOf } from '../helpers/writes.ts';

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { stdio: 'ignore' });
const patch = (...files: [string, string][]) =>
  `*** Begin Patch\n${files.map(([path, line]) => `*** Add File: ${path}\n+${line}\n`).join('')}*** End Patch\n`;

function workTrees() {
  const base = tempDir();
  const shop = join(base, 'shop');
  mkdirSync(join(shop, 'src', 'gen'), { recursive: true });
  git(shop, 'init', '-q');
  git(shop, 'remote', 'add', 'origin', 'https://dev:s3cret-token@GitHub.com/Acme/Shop.git');
  writeFileSync(
    join(shop, '.gitattributes'),
    'src/gen/** linguist-generated\n*.pb.ts linguist-generated=true\nkeep.pb.ts -linguist-generated\n',
  );
  const bare = join(base, 'scratch');
  mkdirSync(bare);
  git(bare, 'init', '-q');
  const outside = join(base, 'notes');
  mkdirSync(outside);
  return { base, shop, bare, outside };
}

describe("the repository of a session's working directory (spend by repository)", () => {
  it('is the work tree origin as /code names it, from any folder inside; none outside a work tree or without a remote', () => {
    const { shop, bare, outside } = workTrees();
    const repos = new EditRepos();
    const named = { repo: 'github.com/acme/shop', repoId: repoId('https://github.com/acme/shop') };
    expect(repos.repoOf(shop)).toEqual(named);
    expect(repos.repoOf(join(shop, 'src', 'gen'))).toEqual(named);
    expect(repos.repoOf(bare)).toBeUndefined();
    expect(repos.repoOf(outside)).toBeUndefined();
  });
});

describe('the repository of an edit', () => {
  it('ships the origin as landed commits name it, never a path; no repository outside a work tree or without a remote', () => {
    const { shop, bare, outside } = workTrees();
    const repos = new EditRepos();
    const inShop = callEditsOf('codex', 'apply_patch', { command: patch(['src/a.ts', 'const a = 1;']) }, 'Success.', repos, shop);
    expect(inShop.wire).toEqual([
      { ext: 'ts', lines_added: 1, lines_deleted: 0, repo_id: repoId('https://github.com/acme/shop'), repo: 'github.com/acme/shop' },
    ]);
    const text = JSON.stringify(inShop.wire);
    for (const secret of ['s3cret', 'dev:', shop, 'const a']) expect(text).not.toContain(secret);
    // An absolute path from a session elsewhere finds the same repository.
    const absolute = callEditsOf(
      'claude',
      'Write',
      { file_path: join(shop, 'README.md'), content: 'hi\n' },
      { type: 'create' },
      repos,
      outside,
    );
    expect(absolute.wire[0]).toMatchObject({ repo: 'github.com/acme/shop' });
    expect(callEditsOf('codex', 'apply_patch', { command: patch(['b.ts', 'b']) }, 'Success.', repos, bare).wire).toEqual([
      { ext: 'ts', lines_added: 1, lines_deleted: 0 },
    ]);
    expect(callEditsOf('codex', 'apply_patch', { command: patch(['c.ts', 'c']) }, 'Success.', repos, outside).wire).toEqual([
      { ext: 'ts', lines_added: 1, lines_deleted: 0 },
    ]);
    // A relative patch path without a cwd cannot be placed: no repository.
    expect(callEditsOf('codex', 'apply_patch', { command: patch(['d.ts', 'd']) }, 'Success.', repos).wire).toEqual([
      { ext: 'ts', lines_added: 1, lines_deleted: 0 },
    ]);
  });

  it("leaves out what the work tree's .gitattributes marks generated or vendored, from what ships and from the ledger", () => {
    const { shop } = workTrees();
    writeFileSync(
      join(shop, '.gitattributes'),
      'src/gen/** linguist-generated\n*.pb.ts linguist-generated=true\nkeep.pb.ts -linguist-generated\nthird_party/** linguist-vendored\n',
    );
    const edits = callEditsOf(
      'codex',
      'apply_patch',
      {
        command: patch(
          ['src/a.ts', 'a'],
          ['src/gen/api.ts', 'g'],
          ['src/x.pb.ts', 'p'],
          ['src/keep.pb.ts', 'k'],
          ['third_party/lib.c', 'v'],
        ),
      },
      'Success.',
      new EditRepos(),
      shop,
    );
    expect(edits.files.map((f) => f.path)).toEqual(['src/a.ts', 'src/keep.pb.ts']);
    expect(edits.wire.map((w) => [w.ext, w.lines_added])).toEqual([
      ['ts', 1],
      ['ts', 1],
    ]);
  });

  it('does not follow a .gitattributes that is a link', () => {
    const { shop, base } = workTrees();
    const elsewhere = join(base, 'attributes');
    writeFileSync(elsewhere, '*.ts linguist-generated\n');
    execFileSync('rm', [join(shop, '.gitattributes')]);
    symlinkSync(elsewhere, join(shop, '.gitattributes'));
    const edits = callEditsOf('codex', 'apply_patch', { command: patch(['a.ts', 'a']) }, 'Success.', new EditRepos(), shop);
    expect(edits.wire).toHaveLength(1);
  });

  it('reads a work tree once per refresh period, whatever the number of events and folders', () => {
    const { shop } = workTrees();
    let now = 1_000_000;
    const reads: string[] = [];
    const repos = new EditRepos({
      now: () => now,
      readOrigin: (root) => {
        reads.push(root);
        return originUrl(root);
      },
    });
    for (let i = 0; i < 50; i++) expect(repos.place(join(shop, 'src', `f${i % 5}.ts`), undefined)?.repo).toBe('github.com/acme/shop');
    expect(repos.place(join(shop, 'docs', 'x.md'), undefined)?.relPath).toBe('docs/x.md');
    expect(reads).toEqual([shop]);
    // A changed remote or .gitattributes is seen after the refresh period.
    git(shop, 'remote', 'set-url', 'origin', 'git@github.com:acme/shop-renamed.git');
    writeFileSync(join(shop, '.gitattributes'), '*.md linguist-vendored\n');
    now += REFRESH_MS - 1;
    expect(repos.place(join(shop, 'a.ts'), undefined)?.repo).toBe('github.com/acme/shop');
    now += 1;
    const after = repos.place(join(shop, 'a.md'), undefined);
    expect(after?.repo).toBe('github.com/acme/shop-renamed');
    expect(after?.rules).toHaveLength(1);
    expect(reads).toEqual([shop, shop]);
  });
});
