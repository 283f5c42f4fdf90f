// What a change makes stale (api/answers/changes.ts), end to end through the routes: a person the
// directory renames or deletes (SCIM) is renamed in, or leaves, every answer that named them, today's
// live figures included; records that arrive drop today's cached answer but not the daily ones.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { githubSignature } from '../../api/pull-requests/verify.ts';
import { TodayResponse } from '../../api/today/schema.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { INGEST_PATH, type WireRecord } from '../../common/wire.ts';
import { turn, usage } from '../helpers/records.ts';
import { bearer, gzipNdjson, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-20T10:00:00Z');
const TOKENS = '/api/v1/analytics/tokens?startDate=2026-03-19&endDate=2026-03-19';
let scimToken: string;
let server: TestServer;
let acme: Awaited<ReturnType<TestServer['seedOrg']>>;

const get = async (key: string, url: string) => {
  const res = await server.app.inject({ method: 'GET', url, headers: bearer(key) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
};
const today = async () => TodayResponse.parse(await get(acme.users.owner.key, '/api/v1/analytics/today'));
const emails = (byUser: { user_email: string | null }[]) => byUser.map((u) => u.user_email);
const post = async (key: string, records: WireRecord[]) => {
  const res = await server.app.inject({
    method: 'POST',
    url: INGEST_PATH,
    headers: { ...bearer(key), 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
    payload: gzipNdjson(records),
  });
  expect(res.statusCode, res.body).toBe(200);
};

beforeAll(async () => {
  server = await testServer({ now: () => NOW, decodeWorkers: 0 });
  acme = await server.seedOrg('Acme');
  // Yesterday, built by the batch: the member used 100 input tokens of sonnet.
  await server.services.ingest.storeRecords(acme.orgId as OrgId, acme.users.member.id as UserId, [
    turn('2026-03-19', { session_id: 'y1' }),
    usage('claude-sonnet-4-5', '2026-03-19', { input_tokens: 100 }, false, 'y1'),
  ]);
  await server.services.runBatch({ trigger: 'cli', log: createLogger({ name: 't', level: 'silent' }), now: NOW, from: '2026-03-01' });
});
afterAll(() => server.close());

describe('what a change makes stale', () => {
  it('records that arrive drop the cached /today answer, not the daily answers', async () => {
    await post(acme.users.member.key, [turn('2026-03-20T09:00:00Z', { session_id: 'm1' })]);
    expect((await today()).data.activity.daily_active_users).toBe(1);
    const daily = await get(acme.users.owner.key, '/api/v1/analytics/activity?startDate=2026-03-19&endDate=2026-03-19');
    await post(acme.users.manager.key, [turn('2026-03-20T09:30:00Z', { session_id: 'g1' })]);
    expect((await today()).data.activity.daily_active_users).toBe(2);
    expect(await get(acme.users.owner.key, '/api/v1/analytics/activity?startDate=2026-03-19&endDate=2026-03-19')).toEqual(daily);
  });

  it('a person the directory renames is named anew in the answers kept before', async () => {
    await post(acme.users.member.key, [usage('claude-sonnet-4-5', '2026-03-20T09:10:00Z', { input_tokens: 1000 }, false, 'm1')]);
    // Both answers are built, and kept, under the old e-mail.
    expect(emails((await today()).data.tokens.by_user)).toEqual(['member@acme.example.com']);
    expect(emails((await get(acme.users.owner.key, TOKENS)).data[0].by_user)).toEqual(['member@acme.example.com']);
    const minted = await server.app.inject({
      method: 'POST',
      url: '/api/v0/admin/scim/tokens',
      headers: bearer(acme.users.owner.key),
      payload: {},
    });
    expect(minted.statusCode, minted.body).toBe(201);
    scimToken = minted.json().token;
    const renamed = await server.app.inject({
      method: 'PATCH',
      url: `/scim/v2/Users/${acme.users.member.id}`,
      headers: { ...bearer(scimToken), 'content-type': 'application/scim+json' },
      payload: {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'userName', value: 'renamed@acme.example.com' }],
      },
    });
    expect(renamed.statusCode, renamed.body).toBe(200);
    expect(emails((await today()).data.tokens.by_user)).toEqual(['renamed@acme.example.com']);
    expect(emails((await get(acme.users.owner.key, TOKENS)).data[0].by_user)).toEqual(['renamed@acme.example.com']);
  });

  it("a person the directory deletes leaves today's figures too, not only the daily answers", async () => {
    const deleted = await server.app.inject({
      method: 'DELETE',
      url: `/scim/v2/Users/${acme.users.member.id}`,
      headers: bearer(scimToken),
    });
    expect(deleted.statusCode, deleted.body).toBe(204);

    // Their usage stays, under their id; their e-mail went with their user record, from every answer.
    const after = await today();
    expect(after.data.tokens.by_user.map((u) => [u.user_id, u.user_email, u.billable_tokens])).toEqual([
      [acme.users.member.id, null, 1200],
    ]);
    expect(emails((await get(acme.users.owner.key, TOKENS)).data[0].by_user)).toEqual([null]);
  });
});

describe('a pull request delivered', () => {
  it('drops the pull request answers kept before it', async () => {
    const secret = 'gh-webhook-secret-0123456789';
    const put = await server.app.inject({
      method: 'PUT',
      url: '/api/v0/organization/codehosts/github',
      headers: bearer(acme.users.owner.key),
      payload: { secret },
    });
    expect(put.statusCode, put.body).toBeLessThan(300);
    const list = `/api/v0/code/pull_requests?startDate=2026-03-19&endDate=2026-03-20`;
    const figures = `/api/v1/analytics/pull_requests?startDate=2026-03-19&endDate=2026-03-19`;
    expect((await get(acme.users.owner.key, list)).data).toEqual([]);
    expect((await get(acme.users.owner.key, figures)).data[0].merged).toBe(0);

    const event = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', 'fixtures', 'codehost', 'github-pull_request-closed.json'), 'utf8'),
    );
    Object.assign(event.pull_request, { merged: true, merged_at: '2026-03-19T15:21:18Z', merge_commit_sha: 'a'.repeat(40) });
    const body = JSON.stringify(event);
    const delivered = await server.app.inject({
      method: 'POST',
      url: `/api/v1/hooks/github/${acme.orgId}`,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        'x-hub-signature-256': githubSignature(secret, body),
      },
      payload: body,
    });
    expect(delivered.statusCode, delivered.body).toBe(202);
    expect((await get(acme.users.owner.key, list)).data).toHaveLength(1);
    expect((await get(acme.users.owner.key, figures)).data[0].merged).toBe(1);
  });
});
