// Credit-limit enforcement on the developer's machine: the collector asks the server whether this user is
// over their monthly limit in an organization that enforces limits, and keeps $AGENTMETER_HOME/limit-exceeded
// (the message the hook shows when it blocks a prompt) present exactly while that is so. When the server
// cannot be asked, the file is left as it was: an outage neither blocks nor unblocks anyone.
// Before the block, a warning: when this user reaches WARN_AT percent of their limit (or of their own
// budget, which the server counts as one), the collector writes $AGENTMETER_HOME/limit-warning, a hook
// JSON answer with a `systemMessage`; the hook prints it on the next prompt and removes it. The month and
// threshold warned about are kept in limit-warned, so each threshold warns once a month.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, writePrivateFile } from '../common/private-files.ts';

export const LIMIT_FILE = 'limit-exceeded';
export const WARNING_FILE = 'limit-warning';
export const WARNED_FILE = 'limit-warned';
/** The share of the limit (percent) at which the developer is warned before the block. */
export const WARN_AT = 90;

const Status = z.object({
  month: z.string(),
  enforced: z.boolean(),
  userId: z.string(),
  users: z.array(z.object({ userId: z.string(), limit: z.number().nullable(), used: z.number(), over: z.boolean() })),
});

/** Pure: the message for a user over the limit, or undefined when prompts may pass. */
export function limitMessage(status: z.infer<typeof Status>): string | undefined {
  const me = status.users.find((u) => u.userId === status.userId);
  if (!status.enforced || !me?.over || me.limit === null) return undefined;
  return [
    `agentmeter: you have used ${me.used} of your ${me.limit} Standard Credits for ${status.month}.`,
    'Prompts are paused until your limit is raised or the month ends; ask your agentmeter administrator.',
  ].join('\n');
}

/**
 * Pure: the warning for a user at or past WARN_AT percent of their limit but not over it (a key naming
 * the month and threshold, and the hook's JSON answer), or undefined.
 */
export function limitWarning(status: z.infer<typeof Status>): { key: string; json: string } | undefined {
  const me = status.users.find((u) => u.userId === status.userId);
  if (!me || me.limit === null || me.limit <= 0 || me.over || me.used * 100 < WARN_AT * me.limit) return undefined;
  const share = Math.floor((me.used * 100) / me.limit);
  const n = (x: number) => x.toLocaleString('en-US');
  const then = status.enforced ? ' Prompts pause at 100% until the limit is raised or the month ends.' : '';
  const systemMessage = `agentmeter: you have used ${share}% of your ${status.month} credit limit (${n(me.used)} of ${n(me.limit)} Standard Credits).${then}`;
  return { key: `${status.month}:${WARN_AT}`, json: JSON.stringify({ systemMessage }) };
}

/** Writes the warning for the hook unless this month's threshold was warned about already. */
function warnOnce(agentmeterHome: string, status: z.infer<typeof Status>): void {
  const warning = limitWarning(status);
  if (!warning) return;
  const warned = join(agentmeterHome, WARNED_FILE);
  let last = '';
  try {
    last = readFileSync(warned, 'utf8').trim();
  } catch {
    // Never warned on this machine.
  }
  if (last === warning.key) return;
  ensurePrivateDir(agentmeterHome);
  writePrivateFile(join(agentmeterHome, WARNING_FILE), `${warning.json}\n`);
  writePrivateFile(warned, `${warning.key}\n`);
}

export async function refreshLimitStatus(server: string, apiKey: string, agentmeterHome: string): Promise<'blocked' | 'clear' | 'unknown'> {
  let status: z.infer<typeof Status>;
  try {
    const response = await fetch(new URL('/api/v0/organization/usage/limits/users', server), {
      headers: { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) return 'unknown';
    status = Status.parse(await response.json());
  } catch {
    return 'unknown';
  }
  const file = join(agentmeterHome, LIMIT_FILE);
  warnOnce(agentmeterHome, status);
  const message = limitMessage(status);
  if (message) {
    // Written whole, then renamed: the hook never reads half a message.
    ensurePrivateDir(agentmeterHome);
    writePrivateFile(file, `${message}\n`);
    return 'blocked';
  }
  rmSync(file, { force: true });
  return 'clear';
}
