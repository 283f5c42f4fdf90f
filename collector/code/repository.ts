// Which repository a path of the developer's disk belongs to (docs/metrics.md §5 "Ledger"): one per git common
// directory on a machine, and the clones of one remote are one too. A path is first resolved to its real
// path (a symbolic link on the way is followed, so the link and the real folder are one repository), its
// work tree found by walking up to `.git`, and the work tree's common directory read from `.git` itself
// (a folder; or a file `gitdir: …` whose folder names the common one in `commondir`, as linked worktrees
// have). The repository's key is the id of its origin remote (common/repo-id.ts), else its common folder.
import { realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { repoId } from '../../common/repo-id.ts';
import { readRegularFile } from '../regular-file.ts';
import { originUrl, workTreeOf } from './git.ts';

/** Where a file lies: its repository's key, the common git folder, the work tree and the path inside it. */
export interface RepoPlace {
  /** `repo_<id>` of the origin remote, else `dir:<real path of the common git folder>`. */
  key: string;
  commonDir: string;
  root: string;
  /** With `/` separators; '' for the work tree's root itself. */
  relPath: string;
}

/** Entries remembered at most per cache. */
const MAX_CACHED = 10_000;

/** The real path of `path` (which need not exist): its longest existing ancestor resolved, the rest kept. */
export function realPathOf(path: string): string {
  const rest: string[] = [];
  let dir = resolve(path);
  for (;;) {
    try {
      return join(realpathSync(dir), ...rest.reverse());
    } catch {
      const parent = dirname(dir);
      if (parent === dir) return resolve(path);
      rest.push(basename(dir));
      dir = parent;
    }
  }
}

/** A small text file of a git folder (`.git` file, `commondir`): no link followed, at most 64 KiB. */
const readSmall = (path: string) => readRegularFile(path, { maxBytes: 65_536 });

/** The real path of a work tree's common git folder, read from its `.git` entry without running git. */
export function commonDirOf(root: string): string | undefined {
  const dotGit = join(root, '.git');
  const file = readSmall(dotGit);
  if (file === undefined) {
    try {
      return realpathSync(dotGit);
    } catch {
      return undefined;
    }
  }
  const gitdir = /^gitdir: (.+)$/m.exec(file)?.[1]?.trim();
  if (!gitdir) return undefined;
  const gitDir = isAbsolute(gitdir) ? gitdir : resolve(root, gitdir);
  const common = readSmall(join(gitDir, 'commondir'))?.split('\n')[0]?.trim();
  try {
    return realpathSync(common ? resolve(gitDir, common) : gitDir);
  } catch {
    return undefined;
  }
}

export class Repositories {
  private readonly trees = new Map<string, string | null>();
  private readonly keys = new Map<string, { key: string; commonDir: string } | null>();

  constructor(private readonly readOrigin: (dir: string) => string | undefined = originUrl) {}

  /** The key and common folder of a work tree's root (cached for the life of the process). */
  repositoryOf(root: string): { key: string; commonDir: string } | undefined {
    const known = this.keys.get(root);
    if (known !== undefined) return known ?? undefined;
    const commonDir = commonDirOf(root);
    let out: { key: string; commonDir: string } | null = null;
    if (commonDir) {
      const url = this.readOrigin(commonDir);
      out = { key: url ? repoId(url) : `dir:${commonDir}`, commonDir };
    }
    if (this.keys.size >= MAX_CACHED) this.keys.clear();
    this.keys.set(root, out);
    return out ?? undefined;
  }

  /** Where an absolute path lies, or undefined outside any work tree. */
  place(path: string): RepoPlace | undefined {
    const real = realPathOf(path);
    if (this.trees.size >= MAX_CACHED) this.trees.clear();
    const root = workTreeOf(real, this.trees);
    if (!root) return undefined;
    const repository = this.repositoryOf(root);
    if (!repository) return undefined;
    const relPath = relative(root, real).split(sep).join('/');
    if (relPath.startsWith('..')) return undefined;
    return { ...repository, root, relPath };
  }
}
