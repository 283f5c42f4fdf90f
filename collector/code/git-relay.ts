// Git run from a small long-lived child process instead of a fork of this one (a GitRunner, git.ts): the
// same command lines, environment and timeouts as the collector's own runner, for a process that holds
// much memory. Forking such a process costs its page tables, ~25 ms of CPU for the demo's server with
// DuckDB inside, where the relay (a bare Node process) forks in about a millisecond. The relay child is
// driven by a worker thread, so that originUrl can stay synchronous: the calling thread sends the command
// to the worker and sleeps on a shared buffer (Atomics.wait) until the worker writes the answer there.
import { Worker } from 'node:worker_threads';
import {
  GIT_TIMEOUT_MS,
  GitError,
  type GitRunner,
  gitCommand,
  gitEnv,
  gitTimeout,
  LineSplitter,
  originCommand,
  originFromOutput,
} from './git.ts';

/** Most bytes of output a synchronous run answers with (originUrl reads one line). */
export const SYNC_OUTPUT_MOST = 64 * 1024;
/** How much longer than a run's own timeout the caller waits for its answer before giving up on the relay. */
const SYNC_GRACE_MS = 5_000;

/**
 * The relay child (plain CommonJS, given to `node -e`): reads one JSON command a line on stdin, runs it,
 * and writes JSON lines back: `data` (base64 output) as it comes, then one of `code` (the exit code, null
 * when killed), `timeout` or `error` (could not start). It ends when its stdin closes.
 */
const CHILD_SOURCE = `
const { spawn } = require('node:child_process');
const send = (message) => process.stdout.write(JSON.stringify(message) + '\\n');
const run = ({ id, command, env, timeoutMs }) => {
  let ended = false;
  const end = (message) => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    send(message);
  };
  const child = spawn(command[0], command.slice(1), { env, stdio: ['ignore', 'pipe', 'ignore'] });
  const timer = setTimeout(() => {
    child.kill('SIGKILL');
    end({ id, timeout: true });
  }, timeoutMs);
  child.stdout.on('data', (chunk) => {
    if (!ended) send({ id, data: chunk.toString('base64') });
  });
  child.on('error', (error) => end({ id, error: error.message }));
  child.on('close', (code) => end({ id, code }));
};
let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf('\\n'); nl >= 0; nl = buffer.indexOf('\\n')) {
    const line = buffer.slice(0, nl);
    buffer = buffer.slice(nl + 1);
    run(JSON.parse(line));
  }
});
process.stdin.on('end', () => process.exit(0));
`;

/**
 * The worker (CommonJS, eval): starts the relay child, passes commands to it and its answers back, as
 * messages for asynchronous runs and through the shared buffer for synchronous ones (control word 0 is
 * set to 1 when the answer is there; word 1 is the status, -1 for none; word 2 the output's length; the
 * output's bytes follow the first 16 bytes).
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { spawn } = require('node:child_process');
const { shared, childSource, outputMost } = workerData;
const control = new Int32Array(shared, 0, 4);
const bytes = new Uint8Array(shared, 16);
const child = spawn(process.execPath, ['-e', childSource], { stdio: ['pipe', 'pipe', 'ignore'], env: {} });
const sync = new Map();
let alive = true;
const answerSync = (id, status, output) => {
  sync.delete(id);
  const data = Buffer.concat(output).subarray(0, outputMost);
  bytes.set(data);
  Atomics.store(control, 1, status);
  Atomics.store(control, 2, data.length);
  Atomics.store(control, 0, 1);
  Atomics.notify(control, 0);
};
const ended = (reason) => {
  if (!alive) return;
  alive = false;
  for (const id of [...sync.keys()]) answerSync(id, -1, []);
  parentPort.postMessage({ relayEnded: reason });
};
child.on('error', (error) => ended('could not start the git relay: ' + error.message));
child.on('exit', (code, signal) => ended('the git relay ended (' + (code ?? signal) + ')'));
child.stdin.on('error', () => undefined);
let buffer = '';
child.stdout.setEncoding('utf8');
child.stdout.on('data', (chunk) => {
  buffer += chunk;
  for (let nl = buffer.indexOf('\\n'); nl >= 0; nl = buffer.indexOf('\\n')) {
    const message = JSON.parse(buffer.slice(0, nl));
    buffer = buffer.slice(nl + 1);
    const output = sync.get(message.id);
    if (!output) parentPort.postMessage(message);
    else if (message.data !== undefined) output.push(Buffer.from(message.data, 'base64'));
    else answerSync(message.id, typeof message.code === 'number' ? message.code : -1, output);
  }
});
parentPort.on('message', (request) => {
  if (request.close) {
    child.stdin.end();
    return;
  }
  if (!alive) {
    if (request.sync) answerSync(request.id, -1, []);
    else parentPort.postMessage({ id: request.id, error: 'the git relay is not running' });
    return;
  }
  if (request.sync) sync.set(request.id, []);
  child.stdin.write(JSON.stringify({ id: request.id, command: request.command, env: request.env, timeoutMs: request.timeoutMs }) + '\\n');
});
`;

/** An answer of the relay child for one asynchronous run. */
interface RelayMessage {
  id?: number;
  data?: string;
  code?: number | null;
  timeout?: true;
  error?: string;
  relayEnded?: string;
}

interface PendingRun {
  args: string[];
  timeoutMs: number;
  lines: LineSplitter;
  resolve: (code: number) => void;
  reject: (error: Error) => void;
}

export class GitRelay implements GitRunner {
  private readonly worker: Worker;
  private readonly shared = new SharedArrayBuffer(16 + SYNC_OUTPUT_MOST);
  private readonly control = new Int32Array(this.shared, 0, 4);
  private readonly pending = new Map<number, PendingRun>();
  private nextId = 0;
  private ended: string | undefined;

  constructor() {
    // No execArgv of ours (a loader, a profiler): the worker needs only Node's own modules.
    this.worker = new Worker(WORKER_SOURCE, {
      eval: true,
      execArgv: [],
      workerData: { shared: this.shared, childSource: CHILD_SOURCE, outputMost: SYNC_OUTPUT_MOST },
    });
    // The runs in flight hold the process open, not the relay itself.
    this.worker.unref();
    this.worker.on('message', (message: RelayMessage) => this.answer(message));
    this.worker.on('error', (error) => this.fail(`the git relay's worker failed: ${error.message}`));
    this.worker.on('exit', () => this.fail('the git relay was closed'));
  }

  lines(root: string, args: string[], onLine: (line: string) => void, timeoutMs = GIT_TIMEOUT_MS): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.ended) {
        reject(new GitError(`git could not run: ${this.ended}`));
        return;
      }
      const id = ++this.nextId;
      this.pending.set(id, { args, timeoutMs, lines: new LineSplitter(onLine), resolve, reject });
      if (this.pending.size === 1) this.worker.ref();
      this.worker.postMessage({ id, command: gitCommand(root, args), env: gitEnv(), timeoutMs });
    });
  }

  originUrl(root: string): string | undefined {
    const run = this.runSync(originCommand(root), GIT_TIMEOUT_MS);
    return originFromOutput(run.status, run.stdout);
  }

  /** Runs a command and waits for it on this thread; status null when it failed, timed out or the relay is gone. */
  private runSync(command: string[], timeoutMs: number): { status: number | null; stdout: string } {
    if (this.ended) return { status: null, stdout: '' };
    Atomics.store(this.control, 0, 0);
    this.worker.postMessage({ id: ++this.nextId, sync: true, command, env: gitEnv(), timeoutMs });
    if (Atomics.wait(this.control, 0, 0, timeoutMs + SYNC_GRACE_MS) === 'timed-out') {
      // Its answer may still come and must not be taken for the next one's: the relay is given up.
      this.fail('the git relay did not answer in time');
      return { status: null, stdout: '' };
    }
    const status = Atomics.load(this.control, 1);
    const length = Atomics.load(this.control, 2);
    const stdout = Buffer.from(new Uint8Array(this.shared, 16, length)).toString('utf8');
    return { status: status < 0 ? null : status, stdout };
  }

  private answer(message: RelayMessage): void {
    if (message.relayEnded !== undefined) {
      this.fail(message.relayEnded);
      return;
    }
    const run = message.id === undefined ? undefined : this.pending.get(message.id);
    if (!run) return;
    if (message.data !== undefined) {
      run.lines.write(Buffer.from(message.data, 'base64'));
      return;
    }
    this.settled(message.id!);
    if (message.timeout) run.reject(gitTimeout(run.args, run.timeoutMs));
    else if (message.error !== undefined) run.reject(new GitError(`git could not run: ${message.error}`));
    else {
      run.lines.end();
      run.resolve(message.code ?? 1);
    }
  }

  private settled(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.worker.unref();
  }

  /** Every run in flight fails with the reason; later ones fail at once. */
  private fail(reason: string): void {
    this.ended ??= reason;
    for (const [id, run] of this.pending) {
      this.settled(id);
      run.reject(new GitError(`git could not run: ${reason}`));
    }
  }

  /** Ends the relay child (its runs in flight end with it) and the worker. */
  async close(): Promise<void> {
    this.worker.postMessage({ close: true });
    this.fail('the git relay was closed');
    await this.worker.terminate();
  }
}
