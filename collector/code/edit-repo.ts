// The repository an edited file belongs to (docs/metrics.md §5 "Edits"): the organization-side identity its
// landed commits ship under (common/repo-id.ts repoIdentity: the origin remote's id and normalized
// host/path, `local:<id>` for a remote that is a local path, never the path) and the .gitattributes
// exclusions (linguist-generated / linguist-vendored) of its work tree. Resolved on the hot path of every event, so it runs no git per event: the work tree of a
// folder is found by walking up to `.git` (cached per folder, as the ledger does), and a work tree's
// origin and .gitattributes are read once and kept for a while (a changed remote or .gitattributes is
// seen within REFRESH_MS).
import { dirname, join, relative, sep } from 'node:path';
import { repoIdentity } from '../../common/repo-id.ts';
import { readRegularFile } from '../regular-file.ts';
import { type LinguistRule, parseLinguistRules } from './exclude.ts';
import { absolutePath, originUrl, workTreeOf } from './git.ts';

/** Read with one bounded, niced, read-only `git config` (git.ts). */
export { originUrl };

/** How long a work tree's origin and .gitattributes are trusted before they are read again. */
export const REFRESH_MS = 60_000;
/** Work trees and folders remembered at most (a long-running collector sees a bounded number). */
const MAX_CACHED = 10_000;
/** A .gitattributes larger than this is not read (git's own limit is 100 MB; real ones are tiny). */
const MAX_ATTRIBUTES_BYTES = 1024 * 1024;

/** What a work tree contributes to its files' edits. */
export interface WorkTreeFacts {
  /** Normalized host/path (or `local:<id>`) and id of the origin remote; both undefined without one. */
  repo: string | undefined;
  repoId: string | undefined;
  rules: LinguistRule[];
}

/** An edited file placed in its work tree. */
export interface EditPlace extends WorkTreeFacts {
  /** The file's path relative to the work tree's root, with `/` separators. */
  relPath: string;
}

/** The linguist rules of a work tree's top-level .gitattributes (a link is not followed; none when absent). */
export function workTreeRules(root: string): LinguistRule[] {
  const text = readRegularFile(join(root, '.gitattributes'), { maxBytes: MAX_ATTRIBUTES_BYTES });
  if (text === undefined) return [];
  try {
    return parseLinguistRules(text);
  } catch {
    // A pattern no RegExp takes (a range out of order, `[z-a]`) gives no rules, not a failed scan.
    return [];
  }
}

export interface EditReposOptions {
  now?: () => number;
  /** Reads a work tree's origin URL (tests count the runs). */
  readOrigin?: (root: string) => string | undefined;
}

export class EditRepos {
  private readonly trees = new Map<string, string | null>();
  private readonly facts = new Map<string, { at: number; facts: WorkTreeFacts }>();
  private readonly now: () => number;
  private readonly readOrigin: (root: string) => string | undefined;

  constructor(options: EditReposOptions = {}) {
    this.now = options.now ?? Date.now;
    this.readOrigin = options.readOrigin ?? originUrl;
  }

  /** The facts of a work tree's root, read at most once per REFRESH_MS. */
  factsOf(root: string): WorkTreeFacts {
    const now = this.now();
    const known = this.facts.get(root);
    if (known && now - known.at < REFRESH_MS) return known.facts;
    const url = this.readOrigin(root);
    const identity = url ? repoIdentity(url) : undefined;
    const facts: WorkTreeFacts = { repo: identity?.repo, repoId: identity?.repoId, rules: workTreeRules(root) };
    if (this.facts.size >= MAX_CACHED) this.facts.clear();
    this.facts.set(root, { at: now, facts });
    return facts;
  }

  /** The repository of a working directory (its work tree's origin); undefined outside a work tree or without one. */
  repoOf(dir: string): { repo: string; repoId: string } | undefined {
    if (this.trees.size >= MAX_CACHED) this.trees.clear();
    const root = workTreeOf(dir, this.trees);
    if (!root) return undefined;
    const { repo, repoId } = this.factsOf(root);
    return repo && repoId ? { repo, repoId } : undefined;
  }

  /** Where an edited file lies: its work tree's facts and its path there; undefined outside any work tree. */
  place(path: string, cwd: string | undefined): EditPlace | undefined {
    const absolute = absolutePath(path, cwd);
    if (!absolute) return undefined;
    if (this.trees.size >= MAX_CACHED) this.trees.clear();
    // The folder, not the file: every file of a folder shares one cache entry.
    const root = workTreeOf(dirname(absolute), this.trees);
    if (!root) return undefined;
    const relPath = relative(root, absolute).split(sep).join('/');
    if (relPath === '' || relPath.startsWith('..')) return undefined;
    return { ...this.factsOf(root), relPath };
  }
}
