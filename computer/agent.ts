// The computer agent: `agentmeter computer run`. It only connects out: says hello with its start-up
// checks, long-polls for work, and for each message reports the start, runs the agent (keeping the lease
// alive with heartbeats), and reports the result until the server has it. One message at a time.

import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { z } from 'zod';
import { type BackoffOptions, backoffDelay, DEFAULT_BACKOFF } from '../common/backoff.ts';
import {
  type Check,
  computerPath,
  HEARTBEAT_MS,
  LeaseAnswer,
  PollAnswer,
  type ResultBody,
  type WorkItem,
} from '../common/computer-protocol.ts';
import { errorDetail } from '../common/http.ts';
import type { Logger } from '../common/logger.ts';
import { resolveExecutable } from './command.ts';
import type { ComputerCredentials } from './credentials.ts';
import { sessionDirectory } from './policy.ts';
import { type RunOptions, realpathOrUndefined, realRoots, runAgent } from './runner.ts';

export interface ComputerAgentOptions extends Omit<RunOptions, 'signal'> {
  credentials: ComputerCredentials;
  log: Logger;
  /** How long one poll may wait on the server. */
  pollWaitMs?: number;
  backoff?: BackoffOptions;
}

/** The server answered, but not with success: 404/409 mean the message is no longer ours to report. */
class ServerAnswer extends Error {
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(`server answered ${status}: ${detail}`);
  }
}

export class ComputerAgent {
  private readonly abort = new AbortController();
  private stopped = false;

  constructor(private readonly options: ComputerAgentOptions) {}

  /**
   * Start-up checks: the agent command can be run, every allowed root exists, and the default directory
   * exists inside them.
   */
  checks(): Check[] {
    const { allowedRoots, defaultCwd } = this.options;
    const exe = resolveExecutable(this.options.command[0] ?? '', this.options.env['PATH'] ?? '');
    const missingRoots = allowedRoots.filter((root) => realpathOrUndefined(root) === undefined);
    let rootsError =
      allowedRoots.length === 0
        ? 'no folder allowed (--allow-root DIR)'
        : missingRoots.length
          ? `allowed folder ${missingRoots.join(', ')} does not exist`
          : undefined;
    let cwdError: string | undefined;
    const where = sessionDirectory(null, { defaultCwd, roots: realRoots(allowedRoots) }, realpathOrUndefined);
    if ('error' in where) cwdError = where.error.replace("the session's directory", 'the default directory (--cwd)');
    else {
      try {
        if (!statSync(where.path).isDirectory()) cwdError = `${defaultCwd} is not a directory`;
      } catch {
        cwdError = `${defaultCwd} does not exist`;
      }
    }
    const clip = (error: string | undefined) => error?.slice(0, 2000); // the hello body's limit
    rootsError = clip(rootsError);
    cwdError = clip(cwdError);
    return [
      { name: 'agent command', ok: 'path' in exe, ...('error' in exe ? { error: exe.error } : {}) },
      { name: 'allowed folders', ok: rootsError === undefined, ...(rootsError ? { error: rootsError } : {}) },
      { name: 'default directory', ok: cwdError === undefined, ...(cwdError ? { error: cwdError } : {}) },
    ];
  }

  /** Runs until stop(). Resolves false when the start-up checks failed (reported to the server first). */
  async run(): Promise<boolean> {
    const { log, credentials } = this.options;
    const checks = this.checks();
    await this.retrying('hello', () => this.call('POST', '/agent/hello', { checks, agentCommand: this.options.command.join(' ') }));
    const failed = checks.filter((c) => !c.ok);
    if (failed.length) {
      for (const check of failed) log.error({ check: check.name, error: check.error }, 'computer check failed');
      return false;
    }
    log.info(
      { computerId: credentials.computerId, server: credentials.server, command: this.options.command.join(' ') },
      'computer agent connected',
    );
    while (!this.stopped) {
      const answer = await this.retrying('poll', () =>
        this.call('GET', `/agent/work?waitMs=${this.options.pollWaitMs ?? 25_000}`, undefined, PollAnswer),
      );
      if (answer?.work) await this.handle(answer.work);
    }
    log.info('computer agent stopped');
    return true;
  }

  stop(): void {
    this.stopped = true;
    this.abort.abort();
  }

  private async handle(work: WorkItem): Promise<void> {
    const { log } = this.options;
    const ids = { sessionId: work.sessionId, messageId: work.messageId };
    try {
      // Reported before the agent starts: a run the server does not know about can never happen twice.
      await this.call('POST', `/agent/messages/${work.messageId}/start`, {}, LeaseAnswer);
      log.info(ids, 'running message');
      const heartbeat = setInterval(() => {
        this.call('POST', `/agent/messages/${work.messageId}/heartbeat`, {}, LeaseAnswer).catch((error) =>
          log.warn({ ...ids, error: String(error) }, 'heartbeat failed'),
        );
      }, HEARTBEAT_MS);
      let result: ResultBody;
      try {
        result = await runAgent(work, { ...this.options, signal: this.abort.signal });
      } finally {
        clearInterval(heartbeat);
      }
      await this.retrying('result', () => this.call('POST', `/agent/messages/${work.messageId}/result`, result), true);
      log.info({ ...ids, exitCode: result.exitCode, failed: result.error !== undefined }, 'message done');
    } catch (error) {
      if (error instanceof ServerAnswer && (error.status === 404 || error.status === 409))
        log.warn({ ...ids, error: error.message }, 'message no longer ours; skipped');
      else if (!this.stopped) log.error({ ...ids, error: String(error) }, 'message not handled');
    }
  }

  /**
   * Calls until the server answers (backoff with jitter while it is unreachable or failing). 4xx answers
   * are not retried. `evenWhenStopping`: a result is still delivered after stop() (it is what was done).
   */
  private async retrying<T>(what: string, fn: () => Promise<T>, evenWhenStopping = false): Promise<T | undefined> {
    for (let attempt = 0; ; attempt++) {
      if (this.stopped && !evenWhenStopping) return undefined;
      try {
        return await fn();
      } catch (error) {
        if (error instanceof ServerAnswer && error.status < 500) throw error;
        if (this.stopped && (!evenWhenStopping || attempt >= 3)) return undefined;
        const wait = backoffDelay(attempt, this.options.backoff ?? DEFAULT_BACKOFF);
        this.options.log.warn({ call: what, error: String(error), retryInMs: wait }, 'server call failed, retrying');
        await sleep(wait, undefined, evenWhenStopping ? {} : { signal: this.abort.signal }).catch(() => undefined);
      }
    }
  }

  private async call<T = unknown>(method: 'GET' | 'POST', path: string, body?: unknown, schema?: z.ZodType<T>): Promise<T> {
    const { credentials } = this.options;
    const polling = path.startsWith('/agent/work');
    const timeout = AbortSignal.timeout((polling ? (this.options.pollWaitMs ?? 25_000) : 0) + 30_000);
    // A poll ends when the agent stops; a report (start, heartbeat, result) is allowed to finish.
    const signal = polling ? AbortSignal.any([timeout, this.abort.signal]) : timeout;
    const response = await fetch(new URL(computerPath(credentials.computerId, path), credentials.server), {
      method,
      headers: { authorization: `Bearer ${credentials.token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal,
    });
    const text = await response.text();
    if (!response.ok) {
      throw new ServerAnswer(response.status, errorDetail(text));
    }
    const json: unknown = JSON.parse(text);
    return schema ? schema.parse(json) : (json as T);
  }
}
