// Machines are derived from the raw events, not recorded separately: each event id starts with its
// machine's id, and received_at is when the server stored it. One grouped scan of the organization's
// events, only when the pipeline-health page asks. The collector's version is known only from its
// requests (User-Agent, with the machine id in its own header): kept in memory, so after a restart it is
// unknown until that machine's next delivery.
import type { Db } from '../../common/db/duckdb.ts';
import type { AccountStore } from '../accounts/store.ts';
import type { Principal } from '../auth/principal.ts';
import type { Machine } from './schema.ts';

export const MACHINES_SQL = `
SELECT split_part(e.id, '.', 1) AS machine_id, e.user_id, any_value(u.email) AS user_email,
       list_sort(list_distinct(list(e.agent))) AS agents, count(*) AS events,
       strftime(max(e.ts), '%Y-%m-%dT%H:%M:%S.%gZ') AS last_event_at,
       strftime(max(e.received_at), '%Y-%m-%dT%H:%M:%S.%gZ') AS last_delivery_at
FROM events e LEFT JOIN users u ON u.id = e.user_id AND u.org_id = e.org_id
WHERE e.org_id = $org AND ($user IS NULL OR e.user_id = $user) AND contains(e.id, '.')
GROUP BY 1, 2
ORDER BY last_delivery_at DESC, machine_id, e.user_id`;

interface Row {
  machine_id: string;
  user_id: string;
  user_email: string | null;
  agents: string[];
  events: number | bigint;
  last_event_at: string;
  last_delivery_at: string;
}

const MACHINE_ID = /^[0-9a-f]{16}$/;
const COLLECTOR_AGENT = /^agentmeter-collector\/([0-9A-Za-z.+-]{1,32})$/;

/** The collector version of a User-Agent header, if it is agentmeter's collector. */
export function collectorVersion(userAgent: string | undefined): string | undefined {
  return userAgent ? COLLECTOR_AGENT.exec(userAgent)?.[1] : undefined;
}

/** At most this many machines' collector versions are remembered (least recently delivered dropped first). */
export const MAX_REMEMBERED_MACHINES = 100_000;

export class MachineStore {
  /**
   * `${org}|${user}|${machine}` → the collector version of its latest delivery. Keyed by the sender's
   * own user, so a credential can only describe its own machines, and capped, because the machine id is
   * the sender's word and a sender could name endless ones.
   */
  private readonly versions = new Map<string, string>();

  /** Collector keys whose machine is recorded (or being recorded): each is written once. */
  private readonly boundKeys = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly accounts?: AccountStore,
  ) {}

  /**
   * A stored delivery: registers a collector key's machine (the first machine it delivers from, so the
   * machines page lists the key under it), and notes the collector version. The headers are the sender's
   * word, checked for shape only: a key can only describe itself and its own user's machines.
   */
  recordDelivery(
    principal: Pick<Principal, 'orgId' | 'userId' | 'keyId' | 'scope'>,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    const machine = headers['x-agentmeter-machine'];
    if (principal.scope === 'collector' && principal.keyId && typeof machine === 'string' && MACHINE_ID.test(machine))
      this.registerKey(principal.keyId, machine);
    this.noteVersion(principal.orgId, principal.userId, headers);
  }

  private registerKey(keyId: string, machine: string): void {
    if (!this.accounts || this.boundKeys.has(keyId)) return;
    this.boundKeys.add(keyId);
    if (this.boundKeys.size > MAX_REMEMBERED_MACHINES) this.boundKeys.delete(this.boundKeys.values().next().value!);
    // Not awaited: the delivery is answered already. A failure forgets the key, so its next delivery tries again.
    this.accounts.bindMachine(keyId, machine).catch(() => this.boundKeys.delete(keyId));
  }

  private noteVersion(org: string, user: string, headers: Record<string, string | string[] | undefined>): void {
    const machine = headers['x-agentmeter-machine'];
    const version = collectorVersion(typeof headers['user-agent'] === 'string' ? headers['user-agent'] : undefined);
    if (typeof machine !== 'string' || !MACHINE_ID.test(machine) || !version) return;
    const key = `${org}|${user}|${machine}`;
    this.versions.delete(key); // re-inserted last: a Map iterates in insertion order, oldest first
    this.versions.set(key, version);
    if (this.versions.size > MAX_REMEMBERED_MACHINES) this.versions.delete(this.versions.keys().next().value!);
  }

  /** The organization's machines; only one user's when `user` is given. */
  async list(org: string, user: string | null): Promise<Machine[]> {
    const rows = await this.db.all<Row & Record<string, unknown>>(MACHINES_SQL, { org, user });
    return rows.map((r) => ({
      machineId: r.machine_id,
      userId: r.user_id,
      userEmail: r.user_email,
      agents: [...r.agents],
      events: Number(r.events),
      lastEventAt: r.last_event_at,
      lastDeliveryAt: r.last_delivery_at,
      collectorVersion: this.versions.get(`${org}|${r.user_id}|${r.machine_id}`) ?? null,
    }));
  }
}
