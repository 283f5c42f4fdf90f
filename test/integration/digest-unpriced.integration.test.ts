// The weekly digest of a week whose usage has no price (docs/metrics.md §8: never priced at zero silently):
// its dollars leave that usage out, and the digest names the models left out, as the analytics answers do
// (meta.unpriced_models), so its $0.00 does not read as "nothing was spent".
//
// Hand-worked: the week of Monday 2026-03-16; on 03-16 the member used 1,000 input tokens of
// qwen3-coder-plus (no dollar price) and 1,000,000 of gpt-5-codex at the organization's $1 per million:
// the digest says $1.00, top model gpt-5-codex $1.00, and names qwen3-coder-plus as unpriced.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { digestHeadline, digestSlack } from '../../api/digest/messages.ts';
import { DIGEST_PREVIEW_PATH, DigestPreview } from '../../api/digest/schema.ts';
import { PRICING_PATH } from '../../api/pricing/schema.ts';
import { createLogger } from '../../common/logger.ts';
import { usage } from '../helpers/records.ts';
import { bearer, postRecords, putOk, type TestServer, testServer } from '../helpers/server.ts';

const NOW = new Date('2026-03-18T10:00:00Z');

let server: TestServer;
let org: Awaited<ReturnType<TestServer['seedOrg']>>;

beforeAll(async () => {
  server = await testServer({ now: () => NOW });
  org = await server.seedOrg('Unpriced week');
  await putOk(server, org.users.owner.key, PRICING_PATH, {
    model: 'gpt-5-codex',
    effectiveFrom: '2026-03-01',
    inputMtok: 1,
    outputMtok: 0,
  });
  const res = await postRecords(server, org.users.member.key, [
    { ...usage('qwen3-coder-plus', '2026-03-16T10:00:00Z', { input_tokens: 1000 }, false, 'q1'), agent: 'qwen' },
    { ...usage('gpt-5-codex', '2026-03-16T11:00:00Z', { input_tokens: 1_000_000 }, false, 'c1'), agent: 'codex' },
  ]);
  expect(res.statusCode, res.body).toBe(200);
  await server.services.runBatch({ trigger: 'cli', log: createLogger({ name: 'test', level: 'silent' }), now: NOW });
});
afterAll(() => server.close());

describe('the weekly digest of usage without a price', () => {
  it('names the unpriced models beside its dollars, in its body and its text', async () => {
    const res = await server.app.inject({ method: 'GET', url: DIGEST_PREVIEW_PATH, headers: bearer(org.users.manager.key) });
    expect(res.statusCode, res.body).toBe(200);
    const { digest } = DigestPreview.parse(res.json());
    expect(digest.week).toEqual({ from: '2026-03-16', to: '2026-03-22' });
    expect(digest.cost_usd).toBe(1);
    expect(digest.top_models).toEqual([{ model: 'gpt-5-codex', cost_usd: 1 }]);
    expect(digest.unpriced_models).toEqual(['qwen3-coder-plus']);
    expect(digestHeadline(digest)).toContain('$1.00 (without qwen3-coder-plus: no price)');
    expect(digestSlack(digest).blocks[1]).toMatchObject({ text: { text: expect.stringContaining('without qwen3-coder-plus: no price') } });
  });
});
