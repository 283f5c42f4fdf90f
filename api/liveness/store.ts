// What the liveness probe asks the database: the cheapest query that still needs DuckDB to answer.
import type { Db } from '../../common/db/duckdb.ts';

const PING_SQL = 'SELECT 1 AS ok';

/** Resolves once the database answered; rejects (the probe's 500) when it cannot. */
export async function pingDatabase(db: Db): Promise<void> {
  await db.all(PING_SQL);
}
