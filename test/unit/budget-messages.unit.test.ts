import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isPrivateAddress, urlProblem } from '../../api/budgets/destination.ts';
import { percentage, reachedThresholds, signature, slackBody } from '../../api/budgets/messages.ts';
import { effectiveLimit } from '../../api/limits/effective.ts';
import { limitWarning } from '../../collector/limits.ts';
import { buildStepTargets } from '../../pipeline/batch.ts';

describe('budget thresholds', () => {
  it('reaches a threshold at exactly its share, never by rounding', () => {
    expect(reachedThresholds(899, 1000, [50, 75, 90, 100])).toEqual([50, 75]);
    expect(reachedThresholds(900, 1000, [100, 90, 50, 75])).toEqual([50, 75, 90]);
    // 2/3 of 3 credits is 66.67%: 67 is not reached by 2.
    expect(reachedThresholds(2, 3, [66, 67])).toEqual([66]);
    expect(reachedThresholds(0, 10, [50])).toEqual([]);
    expect(percentage(1050, 1000)).toBe(105);
    expect(percentage(2, 3)).toBe(66.67);
  });

  it('signs the raw body with HMAC-SHA256 and writes a Slack text', () => {
    const body = '{"a":1}';
    expect(signature('k'.repeat(16), body)).toBe(`sha256=${createHmac('sha256', 'k'.repeat(16)).update(body).digest('hex')}`);
    expect(
      slackBody({
        id: 'alr_1',
        type: 'budget.threshold',
        org_id: 'org_1',
        budget: { scope: 'user', email: 'dev@example.com', monthlyCredits: 10000 },
        threshold: 90,
        unit: 'credits',
        usage: 9100,
        limit: 10000,
        month: '2026-03',
        fired_at: '2026-03-20T10:00:00.000Z',
      }).text,
    ).toBe('agentmeter: dev@example.com reached 90% of its 2026-03 budget: 9,100 of 10,000 Standard Credits.');
  });
});

describe('webhook destinations', () => {
  it('refuses private, loopback, link-local and reserved addresses, v4, v6 and mapped', () => {
    for (const a of [
      '127.0.0.1',
      '10.1.2.3',
      '172.20.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      '::',
      'fe80::1',
      'fd00::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ])
      expect(isPrivateAddress(a), a).toBe(true);
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPrivateAddress(a), a).toBe(false);
  });

  it('takes http(s) URLs without credentials', () => {
    expect(urlProblem('https://hooks.example.com/x')).toBeUndefined();
    expect(urlProblem('ftp://example.com/')).toBe('must be http or https');
    expect(urlProblem('https://user:pw@example.com/')).toBe('must not carry a user name or password');
    expect(urlProblem('nope')).toBe('is not a URL');
  });
});

describe("a developer's own limit", () => {
  it('is the smaller of the credit limit and the own budget', () => {
    expect(effectiveLimit(null, null)).toBeNull();
    expect(effectiveLimit(1000, null)).toBe(1000);
    expect(effectiveLimit(null, 800)).toBe(800);
    expect(effectiveLimit(1000, 800)).toBe(800);
  });

  it('warns from 90% of it until the block, keyed by month', () => {
    const status = (used: number, limit: number | null, over = false) => ({
      month: '2026-03',
      enforced: false,
      userId: 'u1',
      users: [{ userId: 'u1', limit, used, over }],
    });
    expect(limitWarning(status(899, 1000))).toBeUndefined();
    expect(limitWarning(status(900, null))).toBeUndefined();
    expect(limitWarning(status(1000, 1000, true))).toBeUndefined();
    expect(limitWarning(status(905, 1000))).toEqual({
      key: '2026-03:90',
      json: JSON.stringify({
        systemMessage: 'agentmeter: you have used 90% of your 2026-03 credit limit (905 of 1,000 Standard Credits).',
      }),
    });
  });
});

describe('the live build', () => {
  it("shadows every table the batch's build steps write, read from their SQL", () => {
    const targets = buildStepTargets();
    expect(targets).toEqual(
      expect.arrayContaining(['agg_breakdown_day', 'agg_hooks_day', 'agg_org_day', 'agg_tokens_day', 'agg_user_day']),
    );
    // The steps' own temp tables are not among them.
    for (const temp of ['ev', 'ev_sessions', 'usage_raw', 'user_share', 'session_start']) expect(targets).not.toContain(temp);
    expect(buildStepTargets(['30_tokens'])).toEqual(['agg_tokens_day']);
  });
});
