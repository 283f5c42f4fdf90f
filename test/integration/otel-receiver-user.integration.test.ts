// On a machine several people use, every user's agents export to 127.0.0.1:4318, and one user's collector
// holds the port: the receiver answers only its own user's connections (Linux, collector/otel/peer.ts), so
// nobody's telemetry is spooled and shipped under another's key. Another user is played by a child process
// run as nobody (65534) when the tests run as root, as in CI.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { type Connection, checkReceiver } from '../../cli/doctor/checks.ts';
import { receiverAnswerOf } from '../../cli/doctor/probe.ts';
import { OtlpReceiver } from '../../collector/otel/receiver.ts';
import { ensureSpool, spoolDirs } from '../../collector/spool.ts';
import { createLogger } from '../../common/logger.ts';
import { claudeAcceptedEdits, receiverForTests, spooledRecords } from '../helpers/otlp.ts';
import { tempDir } from '../helpers/tmp.ts';

const asRoot = process.getuid?.() === 0 && process.platform === 'linux';
const NOBODY = '65534';
const connection: Connection = { program: '/h/.agentmeter/bin/agentmeter', serverFromEnv: false, hasKey: false, keyFromEnv: false };
const rx = receiverForTests(createLogger({ name: 'test-otel-user', level: 'silent' }));

/** Runs node as nobody with `script` (not blocking: the receiver answers from this process). */
function asNobody(script: string, env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  const child = spawn('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', script], {
    env: { PATH: process.env['PATH']!, ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve({ stdout, stderr }));
  });
}

const POST = `
fetch(process.env.URL, { method: 'POST', headers: { 'content-type': 'application/json' }, body: process.env.BODY })
  .then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.text() })));
`;

describe.skipIf(!asRoot)("the receiver and another user's connections", () => {
  it("refuses another user's export 403, saying why, and spools nothing of it", async () => {
    const before = spooledRecords(rx.dirs).length;
    const run = await asNobody(POST, { URL: `${rx.base}/v1/metrics`, BODY: JSON.stringify(claudeAcceptedEdits(3)) });
    expect(run.stderr).toBe('');
    const answer = JSON.parse(run.stdout) as { status: number; body: string };
    expect(answer.status).toBe(403);
    expect(answer.body).toContain(`uid ${NOBODY}`);
    expect(answer.body).toContain('--otlp-listen');
    expect(spooledRecords(rx.dirs)).toHaveLength(before);
  });

  it("is told apart by doctor: another user's receiver, which loses this user's exports", async () => {
    // What doctor's probe receives, fetched as nobody; then read as the probe reads it.
    const run = await asNobody(
      `fetch(process.env.URL).then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.text() })));`,
      { URL: `${rx.base}/v1/metrics` },
    );
    const { status, body } = JSON.parse(run.stdout) as { status: number; body: string };
    expect(receiverAnswerOf(status, body)).toEqual({ kind: 'another-user' });
    const listen = new URL(rx.base).host;
    const verdict = checkReceiver({ listen, answer: receiverAnswerOf(status, body) }, true, connection);
    expect(verdict.ok).toBe(false);
    expect(verdict.detail).toBe(
      `another user's collector listens on ${listen} and refuses this user's connections: the agents' OpenTelemetry is lost`,
    );
    expect(verdict.fix).toContain('hooks install --otlp-endpoint');
    // Its own user's probe still finds it ours.
    const own = await fetch(`${rx.base}/v1/metrics`);
    expect(receiverAnswerOf(own.status, await own.text())).toEqual({ kind: 'ours' });
  });

  it("answers its own user's export", async () => {
    const before = spooledRecords(rx.dirs).length;
    const response = await fetch(`${rx.base}/v1/metrics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(claudeAcceptedEdits(2)),
    });
    expect(response.status).toBe(200);
    expect(spooledRecords(rx.dirs).length).toBeGreaterThan(before);
  });

  it('names the user who holds the port it could not take', async () => {
    const holder = spawn(
      'setpriv',
      [
        `--reuid=${NOBODY}`,
        `--regid=${NOBODY}`,
        '--clear-groups',
        process.execPath,
        '-e',
        "const s = require('node:net').createServer(); s.listen(0, '127.0.0.1', () => console.log(s.address().port));",
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const port = await new Promise<number>((resolve) => holder.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString()))));
      const dirs = spoolDirs(tempDir());
      ensureSpool(dirs);
      const receiver = new OtlpReceiver({ listen: `127.0.0.1:${port}`, dirs, log: createLogger({ name: 'test', level: 'silent' }) });
      await expect(receiver.start()).rejects.toThrow(`127.0.0.1:${port} is held by another user (uid ${NOBODY})`);
    } finally {
      holder.kill();
    }
  });
});
