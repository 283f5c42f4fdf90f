// The languages table (pipeline/batch.ts loadLanguageTable) loaded at once by the batch, on the writer, and
// by the live figures, on a connection of their own, into a new database: both finish, and the table holds
// each row once. Two loads that each found it empty used to append it twice ("Duplicate key").
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { languageTable } from '../../common/languages.ts';
import { loadLanguageTable } from '../../pipeline/batch.ts';
import { tempDir } from '../helpers/tmp.ts';

const opened: Db[] = [];
afterAll(async () => {
  for (const db of opened) await db.close();
});

describe('loadLanguageTable', () => {
  it('loads a new database once when the writer and another connection load it at the same time', async () => {
    const db = await openDb(join(tempDir(), 'languages.duckdb'));
    opened.push(db);
    const live = await db.connection();
    await Promise.all([loadLanguageTable(db), loadLanguageTable(live), loadLanguageTable(db)]);
    const [count] = await db.all<{ n: number }>('SELECT count(*) AS n FROM languages');
    expect(count!.n).toBe(languageTable().length);
  });
});
