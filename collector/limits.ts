// Credit-limit enforcement on the developer's machine: the collector asks the server whether this user is
// over their monthly limit in an organization that enforces limits, and keeps $AGENTMETER_HOME/limit-exceeded
// (the message the hook shows when it blocks a prompt) present exactly while that is so. When the server
// cannot be asked, the file is left as it was: an outage neither blocks nor unblocks anyone.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, writePrivateFile } from '../common/private-files.ts';

export const LIMIT_FILE = 'limit-exceeded';

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
