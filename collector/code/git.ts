// Read-only git for the code figures (docs/metrics.md §5): every run is `nice`d, bounded by a timeout, and
// told to take no optional lock, run no pager, ask for no credentials and use no external diff or
// textconv; agentmeter never fetches, writes into a repository, or installs a hook. Work trees are found
// by walking up to a `.git` entry without running git (a link named .git is not followed).
import { spawn, spawnSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** Longest one git run may take. */
export const GIT_TIMEOUT_MS = 15_000;

/** The environment of every git run: no optional locks, pager, prompt, editor or locale surprises. */
export function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const key of ['PATH', 'HOME', 'XDG_CONFIG_HOME', 'SYSTEMROOT', 'TMPDIR'])
    if (process.env[key] !== undefined) env[key] = process.env[key];
  return {
    ...env,
    GIT_OPTIONAL_LOCKS: '0',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
    GIT_EDITOR: 'true',
    GIT_ASKPASS: 'true',
    LC_ALL: 'C',
  };
}

/** Options put before every subcommand: never a hook, a filesystem monitor, an external diff or path quoting. */
const GIT_OPTIONS = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.quotePath=false', '--no-pager'];

export class GitError extends Error {}

/** Pure: the command line of one git run (`nice git -C <root>`, the options above, then `args`). */
export const gitCommand = (root: string, args: string[]): string[] => ['nice', '-n', '10', 'git', '-C', root, ...GIT_OPTIONS, ...args];

/** Pure: the command line that reads a work tree's origin remote's URL (originUrl). */
export const originCommand = (root: string): string[] => gitCommand(root, ['config', '--get', 'remote.origin.url']);

/** Pure: the URL in originCommand's output (its first line), or undefined when it failed or said nothing. */
export function originFromOutput(status: number | null, stdout: string): string | undefined {
  const url = status === 0 ? stdout.split('\n')[0]?.trim() : undefined;
  return url || undefined;
}

/**
 * Cuts output into lines as it comes, at LF only (docs/metrics.md §5): a lone CR inside a line is text,
 * not a break, as in git. `end()` gives the last line when the output does not end with LF.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder('utf8');
  private rest = '';

  constructor(private readonly onLine: (line: string) => void) {}

  write(chunk: Buffer): void {
    const text = this.rest + this.decoder.write(chunk);
    let start = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', start)) {
      this.onLine(text.slice(start, nl));
      start = nl + 1;
    }
    this.rest = text.slice(start);
  }

  end(): void {
    const last = this.rest + this.decoder.end();
    this.rest = '';
    if (last !== '') this.onLine(last);
  }
}

/**
 * Runs `nice git -C <root> <args>` and calls onLine for each line of its output as it comes (so a huge
 * diff is never held whole). Resolves with the exit code; rejects on a timeout or when git cannot start.
 */
export function gitLines(root: string, args: string[], onLine: (line: string) => void, timeoutMs = GIT_TIMEOUT_MS): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const [command, ...rest] = gitCommand(root, args);
    const child = spawn(command!, rest, { env: gitEnv(), stdio: ['ignore', 'pipe', 'ignore'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(gitTimeout(args, timeoutMs));
    }, timeoutMs);
    const lines = new LineSplitter(onLine);
    child.stdout.on('data', (chunk: Buffer) => lines.write(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new GitError(`git could not run: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      lines.end();
      resolvePromise(code ?? 1);
    });
  });
}

/** The error of a git run that took longer than its timeout. */
export const gitTimeout = (args: string[], timeoutMs: number) => new GitError(`git ${args[0]} took longer than ${timeoutMs} ms`);

/** The origin remote's URL of a work tree, by one bounded, niced, read-only `git config`; undefined without one. */
export function originUrl(root: string): string | undefined {
  const [command, ...args] = originCommand(root);
  const run = spawnSync(command!, args, { env: gitEnv(), encoding: 'utf8', timeout: GIT_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'ignore'] });
  return originFromOutput(run.status, run.stdout ?? '');
}

/**
 * How the collector runs git. The default forks the collector's process for each command, which costs
 * little in a collector of its own; a caller whose process holds much memory (the demo's server, where a
 * fork costs ~25 ms of CPU) passes a GitRelay (git-relay.ts), which runs the same commands from a small
 * long-lived child process.
 */
export interface GitRunner {
  /** As gitLines. */
  lines(root: string, args: string[], onLine: (line: string) => void, timeoutMs?: number): Promise<number>;
  /** As originUrl (synchronous: the edit places it serves are found on the hot path of every event). */
  originUrl(root: string): string | undefined;
}

/** The collector's own runner: a child process per command. */
export const FORKING_GIT: GitRunner = { lines: gitLines, originUrl };

/** Runs git and returns its output lines, or undefined when it exits non-zero. */
export async function gitOutput(root: string, args: string[], git: GitRunner = FORKING_GIT): Promise<string[] | undefined> {
  const out: string[] = [];
  const code = await git.lines(root, args, (line) => out.push(line));
  return code === 0 ? out : undefined;
}

/**
 * The root of the git work tree holding `path` (a file or folder, which need not exist any more), or
 * undefined. Found by the `.git` entry (a folder, or a file for linked work trees and submodules); a
 * link named `.git` is not followed.
 */
export function workTreeOf(path: string, cache?: Map<string, string | null>): string | undefined {
  let dir = resolve(path);
  const visited: string[] = [];
  for (;;) {
    const known = cache?.get(dir);
    if (known !== undefined) {
      for (const v of visited) cache!.set(v, known);
      return known ?? undefined;
    }
    visited.push(dir);
    let found = false;
    try {
      const stat = lstatSync(join(dir, '.git'));
      found = stat.isDirectory() || stat.isFile();
    } catch {
      // No .git here.
    }
    if (found) {
      for (const v of visited) cache?.set(v, dir);
      return dir;
    }
    const parent = dirname(dir);
    if (parent === dir) {
      for (const v of visited) cache?.set(v, null);
      return undefined;
    }
    dir = parent;
  }
}

/** Pure: a payload's file path made absolute (patch paths are relative to the session's cwd). */
export const absolutePath = (path: string, cwd: string | undefined): string | undefined =>
  isAbsolute(path) ? path : cwd && isAbsolute(cwd) ? resolve(cwd, path) : undefined;
