// `npm start` mints a manager key at each start; the keys the demo minted before (that key, and the sample
// users' collector keys) are revoked then, and no other key.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountStore, type Org } from '../../api/accounts/store.ts';
import type { User } from '../../api/users/store.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { newDemoKey, SAMPLE_COLLECTOR_KEY_NAME, SAMPLE_ORG_NAME } from '../../sample-data/load.ts';
import { tempDir } from '../helpers/tmp.ts';

let db: Db;
let accounts: AccountStore;
let sample: Org;
let manager: User;
let member: User;
beforeAll(async () => {
  db = await openDb(join(tempDir(), 'demo.duckdb'));
  accounts = new AccountStore(db);
  sample = await accounts.createOrg(SAMPLE_ORG_NAME);
  manager = await accounts.createUser({ orgId: sample.id, email: 'manager@sample.example.com', role: 'manager' });
  member = await accounts.createUser({ orgId: sample.id, email: 'member@sample.example.com', role: 'member' });
});
afterAll(() => db.close());

const works = async (key: string) => (await accounts.principalForKey(key)) !== undefined;

describe('the demo revokes its own keys at the next start', () => {
  it("each start's key replaces the last; collector keys and keys of earlier versions go too; other keys stay", async () => {
    const collector = (await accounts.createKey(member, SAMPLE_COLLECTOR_KEY_NAME)).key;
    const olderVersion = (await accounts.createKey(manager, 'demo 2026-11-20T10:11:12.345Z')).key;
    const admins = (await accounts.createKey(manager, 'laptop')).key;
    const adminsDemoWord = (await accounts.createKey(member, 'demo laptop')).key;
    const unnamed = (await accounts.createKey(member)).key;
    const elsewhere = await accounts.createOrg('Another org');
    const stranger = await accounts.createUser({ orgId: elsewhere.id, email: 'x@another.example.com', role: 'manager' });
    const foreign = (await accounts.createKey(stranger, 'agentmeter demo 2026-11-20T10:11:12.345Z')).key;

    const first = await newDemoKey(db, accounts, sample, manager);
    expect(first.revoked).toBe(2);
    expect(await works(first.key)).toBe(true);
    expect(await works(collector)).toBe(false);
    expect(await works(olderVersion)).toBe(false);

    const second = await newDemoKey(db, accounts, sample, manager);
    expect(second.revoked).toBe(1);
    expect(await works(first.key)).toBe(false);
    expect(await works(second.key)).toBe(true);
    for (const key of [admins, adminsDemoWord, unnamed, foreign]) expect(await works(key)).toBe(true);
  });

  it('refuses to touch an organization that is not the sample', async () => {
    const other = await accounts.createOrg('Not the sample');
    const user = await accounts.createUser({ orgId: other.id, email: 'm@not.example.com', role: 'manager' });
    await expect(newDemoKey(db, accounts, other, user)).rejects.toThrow('not the sample organization');
  });
});
