// Runs the agent for one message: the configured command in the session's directory, the text on stdin or
// as the argument after `--`, attachments written to a private temporary directory, and the environment
// that tells our hook this run is the web client of that session and message. The machine's own policy
// (computer/policy.ts) is applied first: a directory outside the allowed roots, or a model that could be
// read as an option, fails the message with the reason, and nothing runs.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { ResultBody, WorkItem } from '../common/computer-protocol.ts';
import { agentArgs } from './command.ts';
import { modelProblem, type Realpath, sessionDirectory, shownPath } from './policy.ts';

/** The assistant's answer is the agent's stdout, kept up to 1 MiB (what the result route accepts). */
const OUTPUT_CAP = 1024 * 1024 - 1024;
const STDERR_TAIL = 2000;

export interface RunOptions {
  command: readonly string[];
  input: 'arg' | 'stdin';
  modelFlag: string;
  /** Where a session without a cwd runs. */
  defaultCwd: string;
  /** The folders sessions may run in (with what is below them), as the owner gave them to `computer run`. */
  allowedRoots: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Stops the run (the computer agent is shutting down). */
  signal: AbortSignal;
}

export const realpathOrUndefined: Realpath = (path) => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/** The allowed roots as real paths (a root that no longer exists allows nothing). */
export const realRoots = (roots: readonly string[]) => roots.map(realpathOrUndefined).filter((r): r is string => r !== undefined);

export async function runAgent(work: WorkItem, options: RunOptions): Promise<ResultBody> {
  // The result route takes a reason of at most 4000 characters (many roots make a long one).
  const refused = (error: string): ResultBody => ({ exitCode: null, output: '', error: error.slice(0, 4000) });
  const where = sessionDirectory(work.cwd, { defaultCwd: options.defaultCwd, roots: realRoots(options.allowedRoots) }, realpathOrUndefined);
  if ('error' in where) return refused(where.error);
  const cwd = where.path;
  try {
    if (!statSync(cwd).isDirectory())
      return refused(`the session's directory ${shownPath(work.cwd ?? cwd)} is not a directory on this computer`);
  } catch {
    return refused(`the session's directory ${shownPath(work.cwd ?? cwd)} does not exist on this computer`);
  }
  const badModel = work.model && options.modelFlag ? modelProblem(work.model) : undefined;
  if (badModel) return refused(badModel);
  const attachmentsDir = work.attachments.length ? mkdtempSync(join(tmpdir(), 'agentmeter-attachments-')) : undefined;
  try {
    const text = attachmentsDir ? withAttachments(work, attachmentsDir) : work.text;
    const args = agentArgs(options.command, { text, model: work.model, modelFlag: options.modelFlag, input: options.input });
    const env: NodeJS.ProcessEnv = {
      ...options.env,
      AGENTMETER_CLIENT: 'web',
      AGENTMETER_SESSION_ID: work.sessionId,
      AGENTMETER_MESSAGE_ID: work.messageId,
      ...(attachmentsDir ? { AGENTMETER_ATTACHMENTS_DIR: attachmentsDir } : {}),
    };
    return await new Promise<ResultBody>((resolve) => {
      const child = spawn(options.command[0]!, args, {
        cwd,
        env,
        stdio: ['pipe', 'pipe', 'pipe'],
        signal: options.signal,
        killSignal: 'SIGTERM',
      });
      let output = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        if (output.length < OUTPUT_CAP) output += chunk.slice(0, OUTPUT_CAP - output.length);
      });
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        stderr = (stderr + chunk).slice(-STDERR_TAIL);
      });
      child.stdin.on('error', () => undefined); // an agent that does not read stdin closes it early
      child.stdin.end(options.input === 'stdin' ? text : '');
      child.once('error', (error) => {
        if (options.signal.aborted) resolve({ exitCode: null, output, error: 'the computer agent stopped while this message ran' });
        else resolve({ exitCode: null, output, error: `could not start ${options.command[0]}: ${error.message}` });
      });
      child.once('close', (code, signal) => {
        if (options.signal.aborted) return resolve({ exitCode: code, output, error: 'the computer agent stopped while this message ran' });
        if (code === 0) return resolve({ exitCode: 0, output });
        const why = signal ? `the agent was killed by ${signal}` : `the agent exited with code ${code}`;
        resolve({ exitCode: code, output, error: stderr.trim() ? `${why}: ${stderr.trim()}` : why });
      });
    });
  } finally {
    if (attachmentsDir) rmSync(attachmentsDir, { recursive: true, force: true });
  }
}

/** Writes the attachments and names them at the end of the prompt, so any agent can open them. */
function withAttachments(work: WorkItem, dir: string): string {
  const lines = work.attachments.map((a, i) => {
    const name = `${i + 1}-${basename(a.name ?? a.path ?? (a.kind === 'image' ? 'image' : 'file')).replace(/[^A-Za-z0-9._-]/g, '_')}`;
    const path = join(dir, name);
    writeFileSync(path, Buffer.from(a.data, 'base64'), { mode: 0o600 });
    return `- ${path}${a.path ? ` (${a.path})` : ''}`;
  });
  return `${work.text}\n\nAttached files:\n${lines.join('\n')}`;
}
