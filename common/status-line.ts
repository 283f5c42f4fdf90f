// The developer's own line (`agentmeter statusline`, `agentmeter me`): the figures of GET /api/v0/me/status
// as the collector last fetched them, kept in $AGENTMETER_HOME/status.json (0600), and how they read.
// Deliberately free of dependencies (node:fs only): the status line is run by the agent on every redraw,
// and the laptop bundle answers it before loading anything else (cli/statusline-fast.ts).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { userHome } from './user-home.ts';

export const STATUS_FILE = 'status.json';
/** Older than this, the figures are shown with their age: the collector refreshes them every minute. */
export const STALE_AFTER_MS = 150_000;

export interface StatusCache {
  /** When the collector fetched the figures (ms since the epoch). */
  fetched_at: number;
  date: string;
  month: string;
  today_credits: number;
  month_credits: number;
  limit: number | null;
  share: number | null;
  enforced: boolean;
}

/** $AGENTMETER_HOME, as common/config.ts resolves it, without loading it. */
export function agentmeterHomeOf(env: NodeJS.ProcessEnv): string {
  return env['AGENTMETER_HOME'] || join(userHome(env['HOME']), '.agentmeter');
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The cached figures, or undefined when there are none (or the file is not ours to trust). */
export function readStatusCache(agentmeterHome: string): StatusCache | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(join(agentmeterHome, STATUS_FILE), 'utf8'));
  } catch {
    return undefined;
  }
  const c = parsed as Partial<StatusCache> | null;
  if (!c || !isNumber(c.fetched_at) || typeof c.date !== 'string' || typeof c.month !== 'string') return undefined;
  if (!isNumber(c.today_credits) || !isNumber(c.month_credits)) return undefined;
  if (!(c.limit === null || isNumber(c.limit)) || !(c.share === null || isNumber(c.share))) return undefined;
  return { ...(c as StatusCache), enforced: c.enforced === true };
}

const n = (x: number) => Math.round(x).toLocaleString('en-US');

/** "3 min", "2 h", "4 d": how long ago. */
export function age(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${Math.max(1, minutes)} min`;
  const hours = Math.floor(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.floor(hours / 24)} d`;
}

/** Pure: the one line for an agent's status line. */
export function statusLine(cache: StatusCache | undefined, now: number): string {
  if (!cache) return 'agentmeter: no figures yet (the collector fetches them after it ships)';
  const today = new Date(now).toISOString().slice(0, 10);
  const parts = [`agentmeter ${cache.date === today ? n(cache.today_credits) : 0} today`, `${n(cache.month_credits)} this month`];
  if (cache.share !== null) parts.push(`${Math.floor(cache.share)}% of budget`);
  const stale = now - cache.fetched_at > STALE_AFTER_MS;
  return `${parts.join(' · ')}${stale ? ` (as of ${age(now - cache.fetched_at)} ago)` : ''}`;
}

/** Pure: the same figures in a few lines, for `agentmeter me`. */
export function statusLines(cache: StatusCache, now: number, live: boolean): string[] {
  const lines = [
    `today (${cache.date} UTC): ${n(cache.today_credits)} Standard Credits`,
    `this month (${cache.month}): ${n(cache.month_credits)} Standard Credits`,
  ];
  if (cache.limit !== null && cache.share !== null)
    lines.push(`limit: ${n(cache.limit)} (${cache.share}% used${cache.enforced ? '; prompts pause at 100%' : ''})`);
  else lines.push('limit: none');
  if (!live) lines.push(`(the server did not answer: figures as of ${age(now - cache.fetched_at)} ago)`);
  return lines;
}
