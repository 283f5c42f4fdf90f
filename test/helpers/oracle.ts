// The oracle tests' machinery (test/e2e/oracle-*.e2e.test.ts): real session files laid into a temporary
// home whole or as they grow (their first third, two thirds, all of it), the agent's installed hook fired
// for each session as the agent would, `collect --once` after each step, then the analytics API read back
// as cells (day × model); and ccusage, the outside tool that reads the same files, run offline on them (or
// its recording beside the fixtures when its native binary cannot run here) and read as the same cells.
import { execSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Agent } from '../../common/agents.ts';
import { oracleFixtures } from './agent-fixtures.ts';
import { ROOT, runCli, type ServerProcess, seedAccount, startServerProcess } from './processes.ts';
import { tempDir } from './tmp.ts';

const CCUSAGE = join(ROOT, 'node_modules', 'ccusage', 'src', 'cli.js');

/** One compared cell: a day and a model's tokens, in agentmeter's terms (docs/metrics.md §1). */
export interface Cell {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}
/** `YYYY-MM-DD` → model → cell. */
export type Cells = Record<string, Record<string, Cell>>;

// ---------------------------------------------------------------- session files as they grow

/** A session file of the fixtures and where the agent keeps it in the test's home. */
export interface SessionFile {
  fixture: string;
  target: string;
  /**
   * Whole days to move every timestamp by, for a real file older than the first day the analytics
   * answer for (common/time.ts EARLIEST_DATE). Both sides read the moved copy, so nothing compared changes.
   */
  shiftDays?: number;
}

/** Pure: the text with every ISO-8601 UTC timestamp moved by whole days, each written as precisely as before. */
export function shiftTimestamps(text: string, days: number): string {
  if (!days) return text;
  return text.replace(/\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(\.\d+)?Z\b/g, (_all, seconds: string, fraction = '') => {
    const moved = new Date(Date.parse(`${seconds}Z`) + days * 86_400_000).toISOString().slice(0, 19);
    return `${moved}${fraction}Z`;
  });
}

/**
 * The file as it stood after `step` of `steps` (1-based): a JSONL file's first lines (a prefix in whole
 * lines, as the agent appends them); a whole-file JSON chat (legacy Gemini) with its first messages, as
 * Gemini rewrote it after each one.
 */
export function grownText(text: string, step: number, steps: number): string {
  if (step >= steps) return text;
  if (text.trimStart().startsWith('{') && !text.includes('\n{')) {
    const chat = JSON.parse(text) as { messages: unknown[] };
    const keep = Math.ceil((chat.messages.length * step) / steps);
    return `${JSON.stringify({ ...chat, messages: chat.messages.slice(0, keep) }, null, 2)}\n`;
  }
  const lines = text.split('\n').filter((l) => l !== '');
  const keep = Math.ceil((lines.length * step) / steps);
  return `${lines.slice(0, keep).join('\n')}\n`;
}

export function layFile(file: SessionFile, step: number, steps: number): void {
  mkdirSync(dirname(file.target), { recursive: true });
  writeFileSync(file.target, grownText(shiftTimestamps(readFileSync(file.fixture, 'utf8'), file.shiftDays ?? 0), step, steps));
}

/** The Codex rollouts of the fixtures, each with its session id (its session_meta), under CODEX_HOME. */
export function codexRollouts(codexHome: string): (SessionFile & { sessionId: string })[] {
  const dir = oracleFixtures('codex');
  return readdirSync(dir)
    .filter((f) => f.startsWith('rollout-') && f.endsWith('.jsonl'))
    .sort()
    .map((name) => {
      const text = readFileSync(join(dir, name), 'utf8');
      const meta = JSON.parse(text.slice(0, text.indexOf('\n'))) as { payload: { id: string } };
      // sessions/YYYY/MM/DD from the name's local date, as Codex files them.
      const [, y, m, d] = /^rollout-(\d{4})-(\d{2})-(\d{2})T/.exec(name)!;
      return { fixture: join(dir, name), target: join(codexHome, 'sessions', y!, m!, d!, name), sessionId: meta.payload.id };
    });
}

/** Days the Claude transcript (August 2025) is moved forward, past the first day the analytics answer for. */
export const CLAUDE_SHIFT_DAYS = 210;

/** The Claude Code transcripts of the fixtures in ~/.claude/projects/<project>/<sessionId>.jsonl, moved forward. */
export function claudeTranscripts(home: string): (SessionFile & { sessionId: string })[] {
  const dir = oracleFixtures('claude');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((name) => ({
      fixture: join(dir, name),
      target: join(home, '.claude', 'projects', '-home-wei-repo-claude-code', name),
      sessionId: name.replace(/\.jsonl$/, ''),
      shiftDays: CLAUDE_SHIFT_DAYS,
    }));
}

/** The Gemini chats of the fixtures, each with its session id, in ~/.gemini/tmp/<projectHash>/chats. */
export function geminiChats(home: string): (SessionFile & { sessionId: string })[] {
  const dir = oracleFixtures('gemini');
  return readdirSync(dir)
    .filter((f) => f.startsWith('session-'))
    .sort()
    .map((name) => {
      const text = readFileSync(join(dir, name), 'utf8');
      // The legacy chat is one JSON document; a JSONL chat starts with its metadata line.
      const head = JSON.parse(name.endsWith('.jsonl') ? text.slice(0, text.indexOf('\n')) : text) as {
        sessionId: string;
        projectHash: string;
      };
      return { fixture: join(dir, name), target: join(home, '.gemini', 'tmp', head.projectHash, 'chats', name), sessionId: head.sessionId };
    });
}

// ---------------------------------------------------------------- hook and collector

/** The command our installer registered for an event, read back from the agent's settings file. */
export function installedCommand(settingsFile: string, event: string): string {
  const hooks = JSON.parse(readFileSync(settingsFile, 'utf8')).hooks as Record<string, { hooks: { command: string }[] }[]>;
  const command = hooks[event]?.flatMap((g) => g.hooks).find((h) => h.command.includes('agentmeter-hook.sh'))?.command;
  if (!command) throw new Error(`no agentmeter hook for ${event} in ${settingsFile}`);
  return command;
}

/** Runs the installed hook as the agent does: through a shell, the payload on stdin. */
export function fireHook(command: string, payload: Record<string, unknown>, home: string, time: string): void {
  execSync(command, {
    input: JSON.stringify(payload),
    env: { PATH: process.env['PATH']!, HOME: home, AGENTMETER_EVENT_TIME: time },
    shell: '/bin/sh',
  });
}

export function collectOnce(server: string, key: string, env: Record<string, string>): string {
  const shipped = runCli(['collect', '--once', '--server', server, '--key', key], env);
  expect(shipped.status, shipped.stderr).toBe(0);
  return shipped.stdout;
}

/** The `timestamp` of a JSON-lines text's last line: when the turn the hook reports ended. */
export const lastLineTime = (text: string): string => (JSON.parse(text.trim().split('\n').at(-1)!) as { timestamp: string }).timestamp;

/** The two ways each test drains the same files: whole, and in three steps as they grow. */
export type DrainName = 'whole' | 'grown';

export interface OracleServer {
  /** The folder the drains' homes are made in. */
  dir: string;
  url(): string;
  /** Per drain: the member's key (the collector's) and the manager's (the batch's and the reads'). */
  accounts: Record<DrainName, { member: string; manager: string }>;
}

/**
 * A real server on a fresh DuckDB, started before the file's tests and stopped after them, with one
 * organization per drain: the same record ids, stored apart.
 */
export function oracleServer(): OracleServer {
  const dir = tempDir();
  const db = join(dir, 'agentmeter.duckdb');
  let server: ServerProcess | undefined;
  const accounts = {} as OracleServer['accounts'];
  beforeAll(async () => {
    for (const name of ['whole', 'grown'] as const) {
      const { key: member, org } = await seedAccount(db, 'member', `${name}@example.com`);
      const { key: manager } = await seedAccount(db, 'manager', `${name}-lead@example.com`, org);
      accounts[name] = { member, manager };
    }
    server = await startServerProcess(db);
  });
  afterAll(async () => {
    await server?.stop();
  });
  return { dir, accounts, url: () => server!.url };
}

/** How one agent's files are drained: its hook, and what each step lays down and reports. */
export interface DrainSpec {
  agent: Agent;
  /** The settings file its installer writes, in the home. */
  hooksFile(home: string): string;
  /** The hook event that reports a turn's end (its installed command is fired). */
  event: string;
  /** The environment besides HOME and AGENTMETER_HOME (Codex's CODEX_HOME). */
  env?(home: string): Record<string, string>;
  /** Lays the files as they are at `step` of `steps`; the hook payloads that report it, each with its time. */
  step(home: string, step: number, steps: number): { payload: Record<string, unknown>; time: string }[];
}

/**
 * Installs the agent's hook into a fresh home and drains in `steps` steps: each step's files laid and its
 * turns reported through the installed hook, then `collect --once`; then nothing quarantined, and the
 * batch. Returns the home.
 */
export function drainInSteps(server: OracleServer, name: DrainName, steps: number, spec: DrainSpec): string {
  const home = join(server.dir, name);
  const env = { HOME: home, AGENTMETER_HOME: join(home, 'am'), ...spec.env?.(home) };
  const installed = runCli(['hooks', 'install', '--agent', spec.agent], env);
  expect(installed.status, installed.stderr).toBe(0);
  const command = installedCommand(spec.hooksFile(home), spec.event);
  for (let step = 1; step <= steps; step++) {
    for (const { payload, time } of spec.step(home, step, steps)) fireHook(command, payload, home, time);
    collectOnce(server.url(), server.accounts[name].member, env);
  }
  expect(runCli(['collect', 'status'], env).stdout).toMatch(/quarantined: 0\n/);
  const batch = runCli(['batch', '--server', server.url(), '--key', server.accounts[name].manager]);
  expect(batch.status, batch.stderr).toBe(0);
  return home;
}

// ---------------------------------------------------------------- the API's cells

async function apiData(server: string, key: string, path: string): Promise<any[]> {
  const res = await fetch(`${server}${path}`, { headers: { authorization: `Bearer ${key}` } });
  const json = (await res.json()) as { data: any[] };
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json.data;
}

/**
 * The API's view: per day and model input and output (`group_by=model`), per day all four counts. The
 * API has no cache figures per model, so cache reads and writes are compared per day.
 */
export async function apiCells(server: string, key: string, startDate: string, endDate: string) {
  const q = `startDate=${startDate}&endDate=${endDate}`;
  const byModel: Record<string, Record<string, { input: number; output: number }>> = {};
  for (const row of await apiData(server, key, `/api/v1/analytics/tokens?${q}&group_by=model`)) {
    (byModel[row.date] ??= {})[row.group_key] = { input: row.input_tokens, output: row.output_tokens };
  }
  const byDay: Record<string, Cell> = {};
  for (const day of await apiData(server, key, `/api/v1/analytics/tokens?${q}`)) {
    if (day.input_tokens || day.output_tokens || day.cache_read_tokens || day.cache_write_tokens)
      byDay[day.date] = {
        input: day.input_tokens,
        output: day.output_tokens,
        cacheRead: day.cache_read_tokens,
        cacheWrite: day.cache_write_tokens,
      };
  }
  return { byModel, byDay };
}

/** The oracle's cells in the API's shape: day × model input/output, and per day the four counts. */
export function apiShape(cells: Cells) {
  const byModel: Record<string, Record<string, { input: number; output: number }>> = {};
  const byDay: Record<string, Cell> = {};
  for (const [date, models] of Object.entries(cells)) {
    const day: Cell = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    for (const [model, c] of Object.entries(models)) {
      (byModel[date] ??= {})[model] = { input: c.input, output: c.output };
      day.input += c.input;
      day.output += c.output;
      day.cacheRead += c.cacheRead;
      day.cacheWrite += c.cacheWrite;
    }
    byDay[date] = day;
  }
  return { byModel, byDay };
}

// ---------------------------------------------------------------- ccusage

export type CcusageAgent = 'claude' | 'codex' | 'gemini';

/** ccusage's daily JSON (20.x): Codex rows carry `models` (name → counts), Gemini rows `modelBreakdowns`. */
export interface CcusageDay {
  date: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  reasoningOutputTokens?: number;
  totalTokens: number;
  models?: Record<string, { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheCreationTokens: number }>;
  modelBreakdowns?: {
    modelName: string;
    inputTokens: number;
    outputTokens: number;
    cacheReadTokens: number;
    cacheCreationTokens: number;
  }[];
}
export interface CcusageDaily {
  daily: CcusageDay[];
}

export const recordingPath = (agent: CcusageAgent) => oracleFixtures(agent, 'ccusage-daily.json');

/**
 * Runs `ccusage <agent> daily --json --offline` (UTC days) with only the given home's files in sight:
 * HOME is the test's, Codex's files through CODEX_HOME, Gemini's through GEMINI_DATA_DIR. Offline: the
 * prices ccusage ships, no request. Undefined when ccusage cannot run here (its native binary is published
 * for a few platforms only).
 */
export function runCcusage(agent: CcusageAgent, env: Record<string, string>): CcusageDaily | undefined {
  if (!existsSync(CCUSAGE)) return undefined;
  const run = spawnSync(process.execPath, [CCUSAGE, agent, 'daily', '--json', '--offline', '--timezone', 'UTC', '--no-color'], {
    env: { PATH: process.env['PATH']!, TZ: 'UTC', ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) {
    // Only a missing native binary is "cannot run"; any other failure is a failure.
    if (/ccusage native binary is not (available|executable)/.test(run.stderr)) return undefined;
    throw new Error(`ccusage ${agent} daily failed (${run.status}): ${run.stderr}`);
  }
  return JSON.parse(run.stdout) as CcusageDaily;
}

/** ccusage live when it runs here, else its recording beside the fixtures (which a live run is checked against). */
export function ccusageDaily(agent: CcusageAgent, env: Record<string, string>): { daily: CcusageDaily; live: boolean } {
  const live = runCcusage(agent, env);
  if (live) return { daily: live, live: true };
  return { daily: JSON.parse(readFileSync(recordingPath(agent), 'utf8')) as CcusageDaily, live: false };
}

/** ccusage's per-model rows of a day, whichever of its two shapes the agent's report has. */
export function ccusageModels(day: CcusageDay) {
  if (day.models) return Object.entries(day.models).map(([model, m]) => ({ model, ...m }));
  return (day.modelBreakdowns ?? []).map(({ modelName, ...m }) => ({ model: modelName, ...m }));
}
