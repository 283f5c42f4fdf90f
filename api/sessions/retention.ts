// The enterprise control sessionRetentionDays: an organization that sets it keeps idle sessions (and their
// messages) that long after their last activity. Applied by the server's daily run, after the batch.
import type { Db } from '../../common/db/duckdb.ts';
import type { Logger } from '../../common/logger.ts';
import { currentControls } from '../controls/store.ts';
import type { SessionStore } from './store.ts';

export async function applySessionRetention(db: Db, sessions: SessionStore, log: Logger): Promise<number> {
  let removed = 0;
  for (const id of await sessions.organizations()) {
    const days = (await currentControls(db, id))?.sessionRetentionDays;
    if (days === undefined) continue;
    const count = await sessions.prune(id, days);
    if (count) log.info({ orgId: id, days, sessions: count }, 'sessions past their retention removed');
    removed += count;
  }
  return removed;
}
