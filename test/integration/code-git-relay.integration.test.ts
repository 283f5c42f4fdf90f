// The git relay (collector/code/git-relay.ts): the collector's git commands run from a small long-lived
// child process, not from a fork of this one, with the same answers as the collector's own runner
// (FORKING_GIT), line for line; and a collector given the relay runs all its git through it.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FORKING_GIT, type GitRunner } from '../../collector/code/git.ts';
import { GitRelay } from '../../collector/code/git-relay.ts';
import { commitLines, landedCandidates, repoFacts } from '../../collector/code/landed.ts';
import { Collector } from '../../collector/daemon.ts';
import { install, installedScriptPath } from '../../collector/install/installer.ts';
import { createLogger } from '../../common/logger.ts';
import { recordingServerForTests } from '../helpers/recording-server.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const EMAIL = 'dev@example.com';
const relay = new GitRelay();
afterAll(() => relay.close());

function git(cwd: string, args: string[], when = '2026-03-01T10:00:00Z') {
  execFileSync('git', args, {
    cwd,
    stdio: 'ignore',
    env: {
      PATH: process.env['PATH'],
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Dev',
      GIT_AUTHOR_EMAIL: EMAIL,
      GIT_COMMITTER_NAME: 'Dev',
      GIT_COMMITTER_EMAIL: EMAIL,
      GIT_AUTHOR_DATE: when,
      GIT_COMMITTER_DATE: when,
    },
  });
}

/** A clone with an origin named by a hosted URL, a vendored folder and two commits on origin/main. */
function repository(): string {
  const dir = tempDir();
  const origin = join(dir, 'origin.git');
  const work = join(dir, 'work');
  git(dir, ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  git(dir, ['clone', '--quiet', origin, work]);
  git(work, ['config', 'user.email', EMAIL]);
  git(work, ['remote', 'set-url', 'origin', 'https://git.example.com/acme/shop.git']);
  git(work, ['config', `url.${origin}.insteadOf`, 'https://git.example.com/acme/shop.git']);
  writeFileSync(join(work, '.gitattributes'), 'vendor/** linguist-vendored\n');
  mkdirSync(join(work, 'vendor'));
  writeFileSync(join(work, 'vendor', 'lib.js'), 'one\ntwo\n');
  writeFileSync(join(work, 'app.ts'), 'export const a = 1;\r\n\nexport const b = 2;\n');
  git(work, ['add', '-A']);
  git(work, ['commit', '--quiet', '-m', 'Start']);
  writeFileSync(join(work, 'app.ts'), 'export const a = 3;\nexport const c = "é";');
  git(work, ['commit', '--quiet', '-am', 'Change'], '2026-03-02T10:00:00Z');
  git(work, ['push', '--quiet', 'origin', 'main']);
  git(work, ['fetch', '--quiet', 'origin']);
  return work;
}

/** What the collector reads of a repository with a runner: its facts, landed commits and their lines. */
async function readWith(git: GitRunner, root: string) {
  const facts = await repoFacts(root, git);
  const commits = await landedCandidates(root, facts.ref!, new Set([EMAIL]), 0, undefined, undefined, git);
  const lines = await Promise.all(commits.map((c) => commitLines(root, c, undefined, git)));
  return { facts, commits, lines, origin: git.originUrl(root), noOrigin: git.originUrl(tempDir()) };
}

describe('git relay', () => {
  it("answers as the collector's own runner does, line for line", async () => {
    const root = repository();
    const own = await readWith(FORKING_GIT, root);
    expect(own.facts.repo).toBe('git.example.com/acme/shop');
    expect(own.commits).toHaveLength(2);
    expect(own.origin).toBe('https://git.example.com/acme/shop.git');
    expect(own.noOrigin).toBeUndefined();
    expect(await readWith(relay, root)).toEqual(own);
    // A line without its LF at the end of the output is a line too.
    const out: string[] = [];
    expect(await relay.lines(root, ['show', 'HEAD:app.ts'], (line) => out.push(line))).toBe(0);
    expect(out).toEqual(['export const a = 3;', 'export const c = "é";']);
    expect(await relay.lines(root, ['rev-parse', '--verify', '--quiet', 'no-such-ref'], () => undefined)).toBe(1);
  });

  it('runs git from its own child process, not from a fork of this one', async () => {
    const root = repository();
    // An alias runs in a shell whose parent is git: the alias prints git's parent's process id.
    const parentOfGit = async (runner: GitRunner) => {
      const out: string[] = [];
      await runner.lines(root, ['-c', "alias.parent=!awk '{ print $4 }' /proc/$PPID/stat", 'parent'], (line) => out.push(line));
      return Number(out[0]);
    };
    expect(await parentOfGit(FORKING_GIT)).toBe(process.pid);
    const relayed = await parentOfGit(relay);
    expect(relayed).toBeGreaterThan(0);
    expect(relayed).not.toBe(process.pid);
  });

  it('a run past its timeout fails as the own runner fails; a closed relay fails every run', async () => {
    const root = repository();
    await expect(relay.lines(root, ['-c', 'alias.wait=!sleep 5', 'wait'], () => undefined, 200)).rejects.toThrow(
      'git -c took longer than 200 ms',
    );
    const closed = new GitRelay();
    await closed.close();
    await expect(closed.lines(root, ['status'], () => undefined)).rejects.toThrow('git could not run: the git relay was closed');
    expect(closed.originUrl(root)).toBeUndefined();
  });

  describe('a collector given the relay', () => {
    const server = recordingServerForTests([]);
    it('runs all its git through it', async () => {
      const root = repository();
      const home = join(root, '..', 'home');
      const agentmeterHome = join(home, '.agentmeter');
      install({ agent: 'claude', home, agentmeterHome, defaultAgentmeterHome: true });
      const counted: string[] = [];
      const counting: GitRunner = {
        lines: (dir, args, onLine, timeoutMs) => {
          counted.push(args[0]!);
          return relay.lines(dir, args, onLine, timeoutMs);
        },
        originUrl: (dir) => {
          counted.push('origin');
          return relay.originUrl(dir);
        },
      };
      const payload = {
        hook_event_name: 'PostToolUse',
        session_id: 's1',
        cwd: root,
        tool_name: 'Write',
        tool_input: { file_path: join(root, 'new.ts'), content: 'export const d = 4;\n' },
        tool_response: { type: 'create', filePath: join(root, 'new.ts'), content: 'export const d = 4;\n', structuredPatch: [] },
      };
      execFileSync('sh', [installedScriptPath(agentmeterHome), 'claude'], {
        input: JSON.stringify(payload),
        env: { PATH: process.env['PATH'], HOME: home, AGENTMETER_EVENT_TIME: '2026-03-01T09:00:00.000Z' },
      });
      const collector = new Collector({ server: server.url, apiKey: 'am_test', agentmeterHome, home, log, git: counting });
      const result = await collector.drain(1);
      await collector.close();
      expect(result.shipped).toBeGreaterThan(0);
      // The edit's repository (its origin, twice: the edit's place and the ledger's key) and the scan.
      expect(counted).toContain('origin');
      expect(counted).toContain('rev-parse');
      expect(counted).toContain('config');
    });
  });
});
