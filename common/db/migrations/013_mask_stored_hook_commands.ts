// Hook commands stored before collectors masked credentials in them (issue 11) are masked in place, in
// the raw events and in the daily hook counts, with the same rules the collector and the ingest route
// use (common/redact.ts). Only the distinct commands are masked in code (a handful of configured hooks
// per organization); each one that changes is rewritten by one UPDATE. Two commands that differ only in
// their secret become one, so their daily counts are added together.
import { redactCommand } from '../../redact.ts';
import type { Db } from '../duckdb.ts';

const DISTINCT_COMMANDS = `SELECT DISTINCT h.command AS command FROM (SELECT unnest(hooks) AS h FROM events WHERE hooks IS NOT NULL)`;

const MASK_EVENTS = `
UPDATE events
SET hooks = list_transform(hooks, h -> CASE WHEN h.command = $old
                                            THEN struct_pack(event := h.event, matcher := h.matcher, command := $new)
                                            ELSE h END)
WHERE hooks IS NOT NULL AND list_contains(list_transform(hooks, h -> h.command), $old)`;

const MOVE_COUNTS = `
INSERT INTO agg_hooks_day (org_id, day, event, matcher, command, count)
SELECT org_id, day, event, matcher, $new, sum(count) FROM agg_hooks_day WHERE command = $old GROUP BY ALL
ON CONFLICT (org_id, day, event, matcher, command) DO UPDATE SET count = agg_hooks_day.count + excluded.count`;

const DROP_OLD_COUNTS = 'DELETE FROM agg_hooks_day WHERE command = $old';

export async function up(tx: Db): Promise<void> {
  for (const { command } of await tx.all<{ command: string }>(DISTINCT_COMMANDS)) {
    const masked = redactCommand(command);
    if (masked === command) continue;
    const params = { old: command, new: masked };
    await tx.run(MASK_EVENTS, params);
    await tx.run(MOVE_COUNTS, params);
    await tx.run(DROP_OLD_COUNTS, { old: command });
  }
}
