// The answer cache: one build per missing key however many ask at once, nothing kept from a build that
// failed or that a change of what it reads overtook; what each change drops (api/answers/changes.ts).
import { describe, expect, it } from 'vitest';
import { acceptsGzip, ResponseCache } from '../../api/answers/cache.ts';
import { Changes, type Source } from '../../api/answers/changes.ts';

/** A build the test finishes by hand, counting how often it was started. */
function manualBuild() {
  const calls: { resolve: (body: string) => void; reject: (error: Error) => void }[] = [];
  const build = () => new Promise<string>((resolve, reject) => calls.push({ resolve, reject }));
  return { build, calls };
}

describe('ResponseCache.getOrBuild', () => {
  it('builds a missing key once for every request that asks while it builds, then answers from memory', async () => {
    const cache = new ResponseCache({ maxEntries: 10 });
    const { build, calls } = manualBuild();
    const waiting = [cache.getOrBuild('k', build), cache.getOrBuild('k', build), cache.getOrBuild('k', build)];
    expect(calls).toHaveLength(1);
    calls[0]!.resolve('{"data":[]}');
    const bodies = await Promise.all(waiting);
    expect(new Set(bodies).size).toBe(1);
    expect(bodies[0]!.raw.toString()).toBe('{"data":[]}');
    // Now cached: answered without a promise and without building.
    expect(cache.getOrBuild('k', build)).toBe(bodies[0]);
    expect(calls).toHaveLength(1);
  });

  it('gives every waiter the error of a failed build and keeps nothing, so the next request builds again', async () => {
    const cache = new ResponseCache({ maxEntries: 10 });
    const { build, calls } = manualBuild();
    const waiting = [cache.getOrBuild('k', build), cache.getOrBuild('k', build)];
    calls[0]!.reject(new Error('startDate must not be after endDate'));
    for (const w of waiting) await expect(w).rejects.toThrow('startDate must not be after endDate');
    expect(cache.size).toBe(0);
    const again = cache.getOrBuild('k', build);
    expect(calls).toHaveLength(2);
    calls[1]!.resolve('{}');
    expect((await again).raw.toString()).toBe('{}');
  });

  it('does not keep a build that a clear() (a batch commit) overtook, but still answers its waiters', async () => {
    const cache = new ResponseCache({ maxEntries: 10 });
    const { build, calls } = manualBuild();
    const before = cache.getOrBuild('k', build);
    cache.clear();
    // A request after the commit does not wait for the old build: it starts its own on the new figures.
    const after = cache.getOrBuild('k', build);
    expect(calls).toHaveLength(2);
    calls[0]!.resolve('old');
    expect((await before).raw.toString()).toBe('old');
    expect(cache.size).toBe(0);
    calls[1]!.resolve('new');
    expect((await after).raw.toString()).toBe('new');
    expect((cache.getOrBuild('k', build) as { raw: Buffer }).raw.toString()).toBe('new');
  });

  it('drops the oldest entry when full, and builds every request anew when the cache is off', async () => {
    const cache = new ResponseCache({ maxEntries: 2 });
    for (const key of ['a', 'b', 'c']) await cache.getOrBuild(key, async () => key);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('c')?.raw.toString()).toBe('c');

    const off = new ResponseCache({ maxEntries: 0 });
    const { build, calls } = manualBuild();
    const waiting = [off.getOrBuild('k', build), off.getOrBuild('k', build)];
    expect(calls).toHaveLength(2);
    for (const [i, c] of calls.entries()) c.resolve(String(i));
    expect((await Promise.all(waiting)).map((b) => b.raw.toString())).toEqual(['0', '1']);
    expect(off.size).toBe(0);
  });
});

describe('ResponseCache memory budget', () => {
  const body = (n: number, seed: string) => seed.repeat(Math.ceil(n / seed.length)).slice(0, n);

  it('counts plain and gzip bytes, and drops the oldest answers when they pass maxBytes', async () => {
    const cache = new ResponseCache({ maxEntries: 100, maxBytes: 10_000 });
    const a = await cache.getOrBuild('a', async () => body(4000, 'a'));
    await cache.getOrBuild('b', async () => body(4000, 'b'));
    expect(cache.heldBytes).toBe(8000);
    // a's gzip form is counted once made; it fits.
    const zipped = a.gzip()!;
    expect(cache.heldBytes).toBe(8000 + zipped.length);
    // A third answer passes the budget: the oldest (a, with its gzip form) goes.
    await cache.getOrBuild('c', async () => body(4000, 'c'));
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBeDefined();
    expect(cache.heldBytes).toBe(8000);
    // Compressing an answer that is no longer kept changes nothing.
    a.gzip();
    expect(cache.heldBytes).toBe(8000);
  });

  it('serves an answer larger than the whole budget without keeping it', async () => {
    const cache = new ResponseCache({ maxEntries: 100, maxBytes: 10_000 });
    await cache.getOrBuild('small', async () => body(3000, 's'));
    const huge = await cache.getOrBuild('huge', async () => body(20_000, 'h'));
    expect(huge.raw.length).toBe(20_000);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('small')).toBeDefined();
    expect(cache.heldBytes).toBe(3000);
  });

  it('holds nothing after clear(), and a budget of 0 turns the cache off', async () => {
    const cache = new ResponseCache({ maxBytes: 10_000 });
    const a = await cache.getOrBuild('a', async () => body(4000, 'a'));
    cache.clear();
    a.gzip();
    expect(cache.heldBytes).toBe(0);
    const off = new ResponseCache({ maxBytes: 0 });
    await off.getOrBuild('a', async () => 'x');
    expect(off.size).toBe(0);
  });
});

describe('ResponseCache.clearOrg', () => {
  it("forgets one organization's entries and builds under way, and keeps the others'", async () => {
    const cache = new ResponseCache({ maxEntries: 10 });
    const { build, calls } = manualBuild();
    const a = cache.getOrBuild('org_a|2026-03-20|/x', build);
    const b = cache.getOrBuild('org_b|2026-03-20|/x', build);
    calls[0]!.resolve('a');
    calls[1]!.resolve('b');
    await Promise.all([a, b]);
    // A build of org_a under way when its batch ends is served but not kept.
    const building = cache.getOrBuild('org_a|2026-03-20|/y', build);
    cache.clearOrg('org_a');
    calls[2]!.resolve('stale');
    expect((await building).raw.toString()).toBe('stale');
    expect(cache.get('org_a|2026-03-20|/x')).toBeUndefined();
    expect(cache.get('org_a|2026-03-20|/y')).toBeUndefined();
    expect(cache.get('org_b|2026-03-20|/x')?.raw.toString()).toBe('b');
    expect(cache.size).toBe(1);
    expect(cache.heldBytes).toBe(1);
  });
});

describe('Changes: what each change drops', () => {
  const daily = { org: 'org_a', reads: ['aggregates', 'users'] as Source[] };
  const today = { org: 'org_a', reads: ['events', 'aggregates', 'prices', 'users'] as Source[] };
  const seeded = async () => {
    const cache = new ResponseCache({ maxEntries: 10 });
    await cache.getOrBuild('org_a|daily', async () => 'd', daily);
    await cache.getOrBuild('org_a|today', async () => 't', today);
    await cache.getOrBuild('org_b|daily', async () => 'b', { ...daily, org: 'org_b' });
    return { cache, changes: new Changes([cache]) };
  };
  const held = (cache: ResponseCache) => ['org_a|daily', 'org_a|today', 'org_b|daily'].filter((k) => cache.get(k));

  it("records that arrive drop their organization's answers that read them; a batch, a user or a price likewise", async () => {
    const cases: [Parameters<Changes['changed']>[0], string[]][] = [
      [{ kind: 'events', org: 'org_a' }, ['org_a|daily', 'org_b|daily']],
      [{ kind: 'price', org: 'org_a' }, ['org_a|daily', 'org_b|daily']],
      [{ kind: 'batch', org: 'org_a' }, ['org_b|daily']],
      [{ kind: 'user', org: 'org_b' }, ['org_a|daily', 'org_a|today']],
      [{ kind: 'batch' }, []],
    ];
    for (const [change, left] of cases) {
      const { cache, changes } = await seeded();
      changes.changed(change);
      expect(held(cache), JSON.stringify(change)).toEqual(left);
    }
  });

  it('keeps a build that only an unrelated change overtook, not one whose sources changed', async () => {
    const { cache, changes } = await seeded();
    const { build, calls } = manualBuild();
    const kept = cache.getOrBuild('org_a|daily2', build, daily);
    const dropped = cache.getOrBuild('org_a|today2', build, today);
    changes.changed({ kind: 'events', org: 'org_a' });
    calls[0]!.resolve('d2');
    calls[1]!.resolve('t2');
    await Promise.all([kept, dropped]);
    expect(cache.get('org_a|daily2')?.raw.toString()).toBe('d2');
    expect(cache.get('org_a|today2')).toBeUndefined();
  });
});

describe('acceptsGzip', () => {
  it('takes gzip when the header gives it, or *, a weight above 0', () => {
    expect(acceptsGzip(undefined)).toBe(false);
    expect(acceptsGzip('gzip')).toBe(true);
    expect(acceptsGzip('br, GZIP;q=0.5')).toBe(true);
    expect(acceptsGzip('*')).toBe(true);
    expect(acceptsGzip('identity')).toBe(false);
    expect(acceptsGzip('gzip;q=0')).toBe(false);
    // gzip named with 0 refuses it whatever * says.
    expect(acceptsGzip('gzip;q=0, *')).toBe(false);
    expect(acceptsGzip('*;q=0')).toBe(false);
  });
});
