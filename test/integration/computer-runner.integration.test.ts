// One run of the agent command, with small shell scripts standing in for the agent.
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { WorkItem } from '../../common/computer-protocol.ts';
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
const options = (command: string[], extra: Partial<RunOptions> = {}): RunOptions => ({
  command,
  input: 'arg',
  modelFlag: '--model',
  defaultCwd: tempDir(),
  env: { PATH: process.env['PATH']! },
  signal: new AbortController().signal,
  ...extra,
});

describe('runAgent', () => {
  it('passes the text as one argument (no shell), the model flag, the session environment, in the default directory', async () => {
    const agent = script(
      'printf "%s|" "$@"; printf "%s|%s|%s|%s" "$PWD" "$AGENTMETER_CLIENT" "$AGENTMETER_SESSION_ID" "$AGENTMETER_MESSAGE_ID"',
    );
    const opts = options(['sh', agent, 'exec']);
    expect(await runAgent(work({ model: 'gpt-5' }), opts)).toEqual({
      exitCode: 0,
      output: `exec|--model|gpt-5|hello; $(rm -rf ~)|${opts.defaultCwd}|web|ses_1|msg_1`,
    });
  });

  it('takes the text on stdin when asked, and runs in the session directory', async () => {
    const cwd = tempDir();
    const agent = script('cat; printf "|%s" "$PWD"');
    expect(await runAgent(work({ cwd }), options(['sh', agent], { input: 'stdin' }))).toEqual({
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
});
