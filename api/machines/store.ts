// Machines are derived from the raw events, not recorded separately: each event id starts with its
// machine's id, and received_at is when the server stored it. One grouped scan of the organization's
// events (~0.1 s a million events on one thread), only when the pipeline-health page asks.
import type { Db } from '../../common/db/duckdb.ts';
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

export class MachineStore {
  constructor(private readonly db: Db) {}

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
    }));
  }
}
