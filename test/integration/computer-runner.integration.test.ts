// One run of the agent command, with small shell scripts standing in for the agent.
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkItem } from '../../common/computer-protocol.ts';
import { createLogger } from '../../common/logger.ts';
import { ComputerAgent } from '../../computer/agent.ts';
import { type RunOptions, runAgent } from '../../computer/runner.ts';
import { waitFor } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

function script(body: string): string {
  const path = join(tempDir(), 'agent.sh');
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}
const work = (extra: Partial<WorkItem> = {}): WorkItem => ({
  sessionId: 'ses_1',
  messageId: 'msg_1',
  cwd: null,
  text: 'hello; $(rm -rf ~)',
  model: null,
  attachments: [],
  leaseUntil: 0,
  ...extra,
});
const options = (command: string[], extra: Partial<RunOptions> = {}): RunOptions => {
  const defaultCwd = extra.defaultCwd ?? tempDir();
  return {
    command,
    input: 'arg',
    modelFlag: '--model',
    defaultCwd,
    allowedRoots: [defaultCwd],
    env: { PATH: process.env['PATH']! },
    signal: new AbortController().signal,
    ...extra,
  };
};

describe('runAgent', () => {
  it('passes the text as one argument (no shell), the model flag, the session environment, in the default directory', async () => {
    const agent = script(
      'printf "%s|" "$@"; printf "%s|%s|%s|%s" "$PWD" "$AGENTMETER_CLIENT" "$AGENTMETER_SESSION_ID" "$AGENTMETER_MESSAGE_ID"',
    );
    const opts = options(['sh', agent, 'exec']);
    expect(await runAgent(work({ model: 'gpt-5' }), opts)).toEqual({
      exitCode: 0,
      output: `exec|--model|gpt-5|--|hello; $(rm -rf ~)|${opts.defaultCwd}|web|ses_1|msg_1`,
    });
  });

  it('takes the text on stdin when asked, and runs in the session directory', async () => {
    const root = tempDir();
    const cwd = join(root, 'project');
    mkdirSync(cwd);
    const agent = script('cat; printf "|%s" "$PWD"');
    expect(await runAgent(work({ cwd }), options(['sh', agent], { input: 'stdin', allowedRoots: [root] }))).toEqual({
      exitCode: 0,
      output: `hello; $(rm -rf ~)|${cwd}`,
    });
  });

  it('a failing agent: its exit code and the tail of its stderr; output kept', async () => {
    const agent = script('echo partial; echo "no credentials" >&2; exit 3');
    expect(await runAgent(work(), options(['sh', agent]))).toEqual({
      exitCode: 3,
      output: 'partial\n',
      error: 'the agent exited with code 3: no credentials',
    });
  });

  it('a command that cannot start, and a directory that does not exist, fail with the reason', async () => {
    expect(await runAgent(work(), options(['/nonexistent/agent']))).toMatchObject({
      exitCode: null,
      error: expect.stringContaining('could not start /nonexistent/agent'),
    });
    expect(await runAgent(work({ cwd: '/nonexistent/dir' }), options(['true']))).toEqual({
      exitCode: null,
      output: '',
      error: "the session's directory /nonexistent/dir does not exist on this computer",
    });
  });

  it('writes attachments to a private directory, lists them after the text, and removes them afterwards', async () => {
    const agent = script(
      'for last in "$@"; do :; done; printf "%s" "$last"; echo; cat "$AGENTMETER_ATTACHMENTS_DIR"/1-notes.txt; echo "$AGENTMETER_ATTACHMENTS_DIR" > "$OUT"',
    );
    const out = join(tempDir(), 'dir');
    const result = await runAgent(
      work({
        text: 'see attached',
        attachments: [{ kind: 'file', name: '../notes.txt', path: 'docs/notes.txt', data: Buffer.from('file body').toString('base64') }],
      }),
      options(['sh', agent], { env: { PATH: process.env['PATH']!, OUT: out } }),
    );
    expect(result.exitCode).toBe(0);
    expect(result.output).toMatch(/^see attached\n\nAttached files:\n- \/.*\/1-notes\.txt \(docs\/notes\.txt\)\nfile body$/);
    const { existsSync, readFileSync } = await import('node:fs');
    expect(existsSync(readFileSync(out, 'utf8').trim())).toBe(false);
  });

  it('stopping the computer agent stops the run and says so', async () => {
    const controller = new AbortController();
    // Stopped once the agent process has started (it says so with a file), not after a guessed 200 ms.
    const started = join(tempDir(), 'started');
    const agent = script('touch "$STARTED"; sleep 30');
    const running = runAgent(
      work(),
      options(['sh', agent], { signal: controller.signal, env: { PATH: process.env['PATH']!, STARTED: started } }),
    );
    await waitFor(() => existsSync(started), 20_000, 'the agent process to start');
    controller.abort();
    expect(await running).toMatchObject({ error: 'the computer agent stopped while this message ran' });
  });

  describe("the computer's own policy", () => {
    // The fake agent records its argv (one per line) and its stdin, then says it ran.
    const recorder = () => {
      const dir = tempDir();
      const agent = script('printf "%s\\n" "$@" > "$REC/argv"; cat > "$REC/stdin"; echo ran');
      return { dir, agent, env: { PATH: process.env['PATH']!, REC: dir } };
    };

    it('a message that looks like a flag reaches the agent as text: on stdin, or after "--" as an argument', async () => {
      const rec = recorder();
      const text = '--dangerously-skip-permissions';
      expect(await runAgent(work({ text }), options(['sh', rec.agent, '-p'], { input: 'stdin', env: rec.env }))).toEqual({
        exitCode: 0,
        output: 'ran\n',
      });
      expect(readFileSync(join(rec.dir, 'argv'), 'utf8')).toBe('-p\n');
      expect(readFileSync(join(rec.dir, 'stdin'), 'utf8')).toBe(text);

      expect(await runAgent(work({ text }), options(['sh', rec.agent, '-p'], { input: 'arg', env: rec.env }))).toMatchObject({
        exitCode: 0,
      });
      expect(readFileSync(join(rec.dir, 'argv'), 'utf8')).toBe(`-p\n--\n${text}\n`);
      expect(readFileSync(join(rec.dir, 'stdin'), 'utf8')).toBe('');
    });

    it('refuses a cwd outside the allowed root (absolute, `..`, or through a link) and runs nothing', async () => {
      const base = tempDir();
      const allowed = join(base, 'allowed');
      mkdirSync(join(allowed, 'repo'), { recursive: true });
      mkdirSync(join(base, 'secret'));
      symlinkSync(join(base, 'secret'), join(allowed, 'escape'));
      const rec = recorder();
      const opts = options(['sh', rec.agent], { defaultCwd: allowed, allowedRoots: [allowed], env: rec.env });
      for (const cwd of ['/root', join(allowed, '..'), 'repo/../..', join(allowed, 'escape'), join(allowed, 'escape', 'x', '..')]) {
        const result = await runAgent(work({ cwd }), opts);
        expect(result, cwd).toMatchObject({
          exitCode: null,
          output: '',
          error: expect.stringMatching(/is outside the folders this computer allows|does not exist on this computer/),
        });
      }
      expect((await runAgent(work({ cwd: join(allowed, 'escape') }), opts)).error).toBe(
        `the session's directory ${join(allowed, 'escape')} (${join(base, 'secret')}) is outside the folders this computer allows (${allowed}); its owner can allow more with agentmeter computer run --allow-root DIR`,
      );
      expect((await runAgent(work({ cwd: '/root' }), opts)).error).toContain("the session's directory /root is outside");
      expect(existsSync(join(rec.dir, 'argv'))).toBe(false);

      // Inside the root (a link that stays inside counts by where it leads) it runs.
      symlinkSync(join(allowed, 'repo'), join(allowed, 'repo-link'));
      expect(await runAgent(work({ cwd: join(allowed, 'repo-link') }), opts)).toEqual({ exitCode: 0, output: 'ran\n' });
      expect(await runAgent(work({ cwd: 'repo' }), opts)).toEqual({ exitCode: 0, output: 'ran\n' });
    });

    it('refuses a model that would be read as an option', async () => {
      const rec = recorder();
      expect(await runAgent(work({ model: '--dangerously-skip-permissions' }), options(['sh', rec.agent], { env: rec.env }))).toEqual({
        exitCode: null,
        output: '',
        error: `the session's model "--dangerously-skip-permissions" is not a model name this computer passes to the agent`,
      });
      expect(existsSync(join(rec.dir, 'argv'))).toBe(false);
    });
  });

  it('start-up checks: every allowed folder exists, and the default directory lies inside one', () => {
    const root = tempDir();
    const checks = (extra: Partial<RunOptions>) =>
      new ComputerAgent({
        ...options(['sh'], { defaultCwd: root, ...extra }),
        credentials: { server: 'http://127.0.0.1:1', computerId: 'cmp_1', name: 'x', token: 'amc_x' },
        log: createLogger({ name: 'test', level: 'silent' }),
      })
        .checks()
        .filter((c) => !c.ok)
        .map((c) => `${c.name}: ${c.error}`);
    expect(checks({})).toEqual([]);
    expect(checks({ allowedRoots: [join(root, 'gone')] })).toEqual([
      `allowed folders: allowed folder ${join(root, 'gone')} does not exist`,
      `default directory: the default directory (--cwd) ${root} is refused: none of the folders this computer allows exists`,
    ]);
    const elsewhere = tempDir();
    expect(checks({ allowedRoots: [elsewhere] })).toEqual([
      `default directory: the default directory (--cwd) ${root} is outside the folders this computer allows (${elsewhere}); its owner can allow more with agentmeter computer run --allow-root DIR`,
    ]);
  });
});
