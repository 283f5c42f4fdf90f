// A computer's status and provisioning steps, derived from when things happened (pure, so the rules are
// tested on fixtures). The reference leaves the transitions open; ours:
//   provisioning  registered, its agent has not connected yet
//   active        its agent connected within ACTIVE_WINDOW_MS and its start-up checks passed
//   error         its checks failed (the reason is the failed step's error), or its agent has not been
//                 heard from for ACTIVE_WINDOW_MS (it stopped, or the machine is off)
// Steps: register → checks → connect, each `pending`, `completed` or `failed`.

/** The agent long-polls for at most 25 s at a time, so a live agent is heard from well within this. */
export const ACTIVE_WINDOW_MS = 90_000;

export interface ComputerTimes {
  created_ms: number;
  checks_ms: number | null;
  checks_error: string | null;
  first_seen_ms: number | null;
  last_seen_ms: number | null;
}

export type ComputerStatus = 'provisioning' | 'active' | 'error';

export interface ProvisioningStep {
  id: string;
  name: string;
  status: 'pending' | 'completed' | 'failed';
  error?: string;
  startedAt?: number;
  completedAt?: number;
}

/** The steps; a connection that went quiet shows as a failed connect step with the reason. */
export function provisioningSteps(c: ComputerTimes, now: number): ProvisioningStep[] {
  const step = (id: string, name: string, at: number | null, error: string | null | undefined): ProvisioningStep =>
    at === null
      ? { id, name, status: 'pending' }
      : error
        ? { id, name, status: 'failed', error, startedAt: at }
        : { id, name, status: 'completed', startedAt: at, completedAt: at };
  return [
    step('register', 'Register the computer', c.created_ms, null),
    step('checks', 'Check the agent command and working directory', c.checks_ms, c.checks_error),
    step('connect', 'Connect the computer agent to the server', c.first_seen_ms, silence(c, now)),
  ];
}

export function computerStatus(c: ComputerTimes, now: number): { status: ComputerStatus; reason?: string } {
  if (c.first_seen_ms === null || c.last_seen_ms === null) return { status: 'provisioning' };
  if (c.checks_error !== null) return { status: 'error', reason: c.checks_error };
  const quiet = silence(c, now);
  if (quiet) return { status: 'error', reason: quiet };
  return { status: 'active' };
}

function silence(c: ComputerTimes, now: number): string | undefined {
  if (c.last_seen_ms === null || now - c.last_seen_ms <= ACTIVE_WINDOW_MS) return undefined;
  return `no connection from the computer agent since ${new Date(c.last_seen_ms).toISOString()}`;
}

/** Pure: how many computers are in each status at `now`, by the rule of computerStatus. */
export function computerCounts(computers: readonly ComputerTimes[], now: number): Record<ComputerStatus, number> {
  const counts: Record<ComputerStatus, number> = { provisioning: 0, active: 0, error: 0 };
  for (const c of computers) counts[computerStatus(c, now).status]++;
  return counts;
}
