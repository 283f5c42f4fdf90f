// The developer's own figures for `agentmeter statusline`: fetched from GET /api/v0/me/status after each
// ship and every minute (collector/daemon.ts), and by `agentmeter me`, then kept in
// $AGENTMETER_HOME/status.json (0600, written whole). When the server cannot be asked, the file keeps the
// last figures, which the status line shows with their age.
import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir, writePrivateFile } from '../common/private-files.ts';
import { STATUS_FILE, type StatusCache } from '../common/status-line.ts';

export const ME_STATUS_PATH = '/api/v0/me/status';

const Answer = z.object({
  date: z.string(),
  month: z.string(),
  today_credits: z.number(),
  month_credits: z.number(),
  limit: z.number().nullable(),
  share: z.number().nullable(),
  enforced: z.boolean(),
});

/** The caller's figures from the server, or undefined when it cannot be asked (or answers otherwise). */
export async function fetchOwnStatus(server: string, apiKey: string, timeoutMs = 10_000): Promise<StatusCache | undefined> {
  try {
    const response = await fetch(new URL(ME_STATUS_PATH, server), {
      headers: { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) return undefined;
    const answer = Answer.parse(await response.json());
    return { fetched_at: Date.now(), ...answer };
  } catch {
    return undefined;
  }
}

export function writeStatusCache(agentmeterHome: string, status: StatusCache): void {
  ensurePrivateDir(agentmeterHome);
  writePrivateFile(join(agentmeterHome, STATUS_FILE), `${JSON.stringify(status)}\n`);
}

/** Fetches and keeps the figures; undefined (and the file untouched) when the server cannot be asked. */
export async function refreshStatusCache(server: string, apiKey: string, agentmeterHome: string): Promise<StatusCache | undefined> {
  const status = await fetchOwnStatus(server, apiKey);
  if (status) writeStatusCache(agentmeterHome, status);
  return status;
}
