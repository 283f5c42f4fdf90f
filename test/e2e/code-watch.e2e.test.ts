// The running collector notices a landed commit after a push, with no polling of the repository: it watches
// the refs of the repositories its sessions ran in (docs/metrics.md §5). A real server, the real hook, the
// `agentmeter collect` daemon, real git.
import { type ChildProcess, execFileSync, execSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as p from '../helpers/payloads.ts';
import { CLI, cliEnv, runCli, type ServerProcess, seedAccount, startServerProcess, waitFor } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const env = { HOME: home, AGENTMETER_HOME: join(home, 'am') };
const origin = join(dir, 'origin.git');
const work = join(home, 'src', 'app');
const Y = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
let server: ServerProcess;
let member: string;
let daemon: ChildProcess | undefined;
let daemonLog = '';

function git(cwd: string, args: string[], time: string): void {
  execFileSync('git', args, {
    cwd,
    stdio: 'ignore',
    env: {
      PATH: process.env['PATH']!,
      HOME: home,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: 'Dev',
      GIT_AUTHOR_EMAIL: 'dev@example.com',
      GIT_COMMITTER_NAME: 'Dev',
      GIT_COMMITTER_EMAIL: 'dev@example.com',
      GIT_AUTHOR_DATE: `${Y}T${time}Z`,
      GIT_COMMITTER_DATE: `${Y}T${time}Z`,
    },
  });
}

beforeAll(async () => {
  mkdirSync(join(home, 'src'), { recursive: true });
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin]);
  git(join(home, 'src'), ['clone', '--quiet', origin, work], '08:00:00');
  git(work, ['config', 'user.email', 'dev@example.com'], '08:00:00');
  writeFileSync(join(work, 'README.md'), '# App\n');
  git(work, ['add', '.'], '08:00:00');
  git(work, ['commit', '--quiet', '-m', 'start'], '08:00:00');
  git(work, ['push', '--quiet', 'origin', 'main'], '08:00:00');
  ({ key: member } = await seedAccount(db, 'member', 'dev@example.com'));
  server = await startServerProcess(db);
});
afterAll(async () => {
  daemon?.kill('SIGTERM');
  await server?.stop();
});

describe('the running collector and landed commits', () => {
  it('ships a commit within a minute of the push that lands it', { timeout: 180_000 }, async () => {
    expect(runCli(['hooks', 'install', '--agent', 'claude'], env).status).toBe(0);
    const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
    const command = (event: string) =>
      settings.hooks[event]
        .flatMap((g: { hooks: { command: string }[] }) => g.hooks)
        .find((h: { command: string }) => h.command.includes('agentmeter-hook.sh')).command as string;
    const c = { session_id: 'w1', transcript_path: join(home, 'none.jsonl'), cwd: work, permission_mode: 'acceptEdits' };
    const content = 'export const answer = 42;\nexport const question = "six by nine";\n';
    writeFileSync(join(work, 'answer.ts'), content);
    for (const [payload, time] of [
      [p.sessionStart(c), '09:00:00'],
      [p.postToolUse('Write', { file_path: join(work, 'answer.ts'), content }, { type: 'create', structuredPatch: [] }, c), '09:01:00'],
    ] as const)
      execSync(command(payload['hook_event_name'] as string), {
        input: JSON.stringify(payload),
        env: { PATH: process.env['PATH']!, HOME: home, AGENTMETER_EVENT_TIME: `${Y}T${time}Z` },
        shell: '/bin/sh',
      });
    daemon = spawn(process.execPath, [CLI, 'collect', '--server', server.url, '--key', member], {
      env: cliEnv({ ...env, LOG_LEVEL: 'info' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    daemon.stdout!.on('data', (d: Buffer) => (daemonLog += d.toString()));
    daemon.stderr!.on('data', (d: Buffer) => (daemonLog += d.toString()));
    await waitFor(() => daemonLog.includes('watching a repository'), 60_000, 'the daemon to watch the repository');
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(daemonLog).not.toContain('commit landed');

    git(work, ['add', 'answer.ts'], '12:00:00');
    git(work, ['commit', '--quiet', '-m', 'answer'], '12:00:00');
    git(work, ['push', '--quiet', 'origin', 'main'], '12:00:00');
    const commits = async () => {
      const res = await fetch(`${server.url}/api/v0/code/commits?startDate=${Y}&endDate=${Y}`, {
        headers: { authorization: `Bearer ${member}` },
      });
      return ((await res.json()) as { data: { lines_added: number; agent_lines: number }[] }).data;
    };
    await waitFor(async () => (await commits()).length > 0, 60_000, 'the landed commit on the server');
    expect(await commits()).toMatchObject([{ lines_added: 2, agent_lines: 2 }]);
  });
});
