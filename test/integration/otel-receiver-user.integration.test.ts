// On a machine several people use, every user's agents export to 127.0.0.1:4318, and one user's collector
// holds the port: the receiver answers only its own user's connections (Linux, collector/otel/peer.ts), so
// nobody's telemetry is spooled and shipped under another's key. Another user is played by a child process
// run as nobody (65534) when the tests run as root, as in CI.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { type Connection, checkReceiver } from '../../cli/doctor/checks.ts';
import { probeReceiverAnswer, receiverAnswerOf } from '../../cli/doctor/probe.ts';
import { OtlpReceiver } from '../../collector/otel/receiver.ts';
import { ensureSpool, spoolDirs } from '../../collector/spool.ts';
import { createLogger } from '../../common/logger.ts';
import { claudeAcceptedEdits, receiverForTests, spooledRecords } from '../helpers/otlp.ts';
import { ROOT } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const asRoot = process.getuid?.() === 0 && process.platform === 'linux';
const NOBODY = '65534';
/** setpriv's arguments that run the command after them as nobody. */
const AS_NOBODY = [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups'];
const connection: Connection = { program: '/h/.agentmeter/bin/agentmeter', serverFromEnv: false, hasKey: false, keyFromEnv: false };
const rx = receiverForTests(createLogger({ name: 'test-otel-user', level: 'silent' }));

/** Runs node as nobody with `script` (not blocking: the receiver answers from this process). */
function asNobody(script: string, env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
  const child = spawn('setpriv', [...AS_NOBODY, process.execPath, '-e', script], {
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

/** The port a process of nobody's prints once it listens; an error if it exits before. */
function printedPort(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString())));
    child.once('exit', (code) => reject(new Error(`nobody's process exited (${code}) before it listened`)));
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

  // Nobody runs this checkout's sources: skipped where they are private (a checkout in a 0700 home).
  const nobodyReadsSources =
    asRoot && spawnSync('setpriv', [...AS_NOBODY, 'test', '-r', join(ROOT, 'collector', 'otel', 'receiver.ts')]).status === 0;
  it.skipIf(!nobodyReadsSources)("answers root's export to another user's receiver: root could act as that user anyway", async () => {
    // A receiver of nobody's, in a process of its own over a spool of nobody's; this process is root.
    const home = tempDir();
    chmodSync(home, 0o755);
    const spool = join(home, 'agentmeter');
    mkdirSync(spool);
    chownSync(spool, 65534, 65534);
    const script = join(home, 'receiver.mjs');
    const source = (path: string) => JSON.stringify(pathToFileURL(join(ROOT, path)).href);
    writeFileSync(
      script,
      `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))};
register();
const { OtlpReceiver } = await import(${source('collector/otel/receiver.ts')});
const { ensureSpool, spoolDirs } = await import(${source('collector/spool.ts')});
const { createLogger } = await import(${source('common/logger.ts')});
const dirs = spoolDirs(process.env.SPOOL_HOME);
ensureSpool(dirs);
const receiver = new OtlpReceiver({ listen: '127.0.0.1:0', dirs, log: createLogger({ name: 'nobody', level: 'silent' }) });
console.log(await receiver.start());
`,
    );
    // Readable by nobody whatever the umask (CI runs with a private one).
    chmodSync(script, 0o644);
    const child = spawn('setpriv', [...AS_NOBODY, process.execPath, script], {
      cwd: home,
      env: { PATH: process.env['PATH']!, SPOOL_HOME: spool },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const port = await printedPort(child);
      const response = await postEdits(`http://127.0.0.1:${port}`);
      expect(response.status).toBe(200);
      // Spooled by nobody's receiver (the spool reader here, root, refuses files of another user).
      expect(readdirSync(spoolDirs(spool).new).length).toBeGreaterThan(0);
    } finally {
      child.kill();
    }
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

  it("refuses another user's export whose connection was closed before the receiver took it", async () => {
    // A client end its program closed is left to the kernel, listed as uid 0 whoever opened it: a receiver
    // run as root took it for its own and spooled the request. spawnSync holds this process, so the
    // receiver accepts only once nobody's program has sent the whole request and closed.
    const home = tempDir();
    const dirs = spoolDirs(home);
    ensureSpool(dirs);
    const logFile = join(home, 'receiver.log');
    const receiver = new OtlpReceiver({
      listen: '127.0.0.1:0',
      dirs,
      log: createLogger({ name: 'test', level: 'warn', destination: logFile }),
    });
    const port = await receiver.start();
    try {
      const body = JSON.stringify(claudeAcceptedEdits(4));
      // Closed, then a moment for the receiver's kernel to acknowledge the close: the client end becomes
      // the kernel's own, listed as uid 0 (before it, uid 65534 with no inode).
      const send = `const s = require('node:net').connect(${port}, '127.0.0.1', () => s.end(process.env.REQUEST, () => { s.destroy(); setTimeout(() => {}, 100); }));`;
      const run = spawnSync('setpriv', [...AS_NOBODY, process.execPath, '-e', send], {
        env: {
          PATH: process.env['PATH']!,
          REQUEST: `POST /v1/metrics HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        },
        encoding: 'utf8',
      });
      expect(run.stderr).toBe('');
      const log = () => readFileSync(logFile, 'utf8');
      await vi.waitFor(() => expect(log().includes('OTLP request refused') || spooledRecords(dirs).length > 0).toBe(true));
      expect(spooledRecords(dirs)).toHaveLength(0);
      expect(log()).toContain("the system's socket tables list no owner for it");
    } finally {
      await receiver.stop();
    }
  });

  it('names the user who holds the port it could not take', async () => {
    const holder = spawn(
      'setpriv',
      [
        ...AS_NOBODY,
        process.execPath,
        '-e',
        "const s = require('node:net').createServer(); s.listen(0, '127.0.0.1', () => console.log(s.address().port));",
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const port = await printedPort(holder);
      const dirs = spoolDirs(tempDir());
      ensureSpool(dirs);
      const receiver = new OtlpReceiver({ listen: `127.0.0.1:${port}`, dirs, log: createLogger({ name: 'test', level: 'silent' }) });
      await expect(receiver.start()).rejects.toThrow(`127.0.0.1:${port} is held by another user (uid ${NOBODY})`);
    } finally {
      holder.kill();
    }
  });
});

// IPv6 sockets need a kernel with IPv6 (its table is there).
describe.skipIf(!existsSync('/proc/net/tcp6'))("the receiver and its own user's connections", () => {
  it('answers a program whose sockets are all IPv6, connected from ::ffff:127.0.0.1 (Java, .NET)', async () => {
    const before = spooledRecords(rx.dirs).length;
    const port = Number(new URL(rx.base).port);
    const body = JSON.stringify(claudeAcceptedEdits(5));
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '::ffff:127.0.0.1',
          port,
          method: 'POST',
          path: '/v1/metrics',
          headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/json' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('socket', (socket) => socket.on('connect', () => expect(socket.localAddress).toBe('::ffff:127.0.0.1')));
      req.on('error', reject);
      req.end(body);
    });
    expect(status).toBe(200);
    expect(spooledRecords(rx.dirs).length).toBeGreaterThan(before);
  });
});

/** A receiver on a free port over a new spool, reading the socket tables through `read`. */
async function receiverReading(read: (path: string) => string): Promise<{ receiver: OtlpReceiver; base: string }> {
  const dirs = spoolDirs(tempDir());
  ensureSpool(dirs);
  const receiver = new OtlpReceiver({
    listen: '127.0.0.1:0',
    dirs,
    log: createLogger({ name: 'test', level: 'silent' }),
    readSocketTable: read,
  });
  return { receiver, base: `http://127.0.0.1:${await receiver.start()}` };
}

const postEdits = (base: string) =>
  fetch(`${base}/v1/metrics`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(claudeAcceptedEdits(1)),
  });

describe.skipIf(process.platform !== 'linux')('the receiver where the socket tables do not say', () => {
  it('refuses a connection it cannot tell, once the tables listed its own socket', async () => {
    // Read at start, then unreadable: no file descriptor left, as another user's idle connections can make
    // it; letting the connection through then let anyone's through.
    let reads = 0;
    const { receiver, base } = await receiverReading((path) => {
      if (++reads > 2) throw Object.assign(new Error(`EMFILE: too many open files, open '${path}'`), { code: 'EMFILE' });
      return readFileSync(path, 'latin1');
    });
    try {
      const response = await postEdits(base);
      expect(response.status).toBe(403);
      expect(await response.text()).toContain("the system's socket tables list no owner for it");
      // doctor tells it from another user's receiver: its own cannot tell whose its connections are.
      const listen = new URL(base).host;
      const answer = await probeReceiverAnswer(listen);
      expect(answer).toEqual({ kind: 'untold' });
      const verdict = checkReceiver({ listen, answer }, true, connection);
      expect(verdict).toMatchObject({ ok: false, detail: expect.stringContaining('cannot tell which user opens its connections') });
      expect(verdict.fix).toContain('port forwarder');
    } finally {
      await receiver.stop();
    }
  });

  it('answers every connection where the tables never list its socket (WSL 1 gives them empty)', async () => {
    const { receiver, base } = await receiverReading(() => '  sl  local_address rem_address   st\n');
    try {
      expect((await postEdits(base)).status).toBe(200);
    } finally {
      await receiver.stop();
    }
  });
});
