// The live build of `/today` is queued per organization (issue 28, item 1): while one organization's
// build runs (a heavy day takes seconds, again and again while its records arrive), another
// organization's build runs beside it on its own connection instead of waiting. One organization's
// build is held open here by the builder the store is given; the others are the real builds over a
// real database. Requests that arrive while a build waits share it, so builds do not pile up behind one
// another while records keep arriving.
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildLiveFigures, type LiveBuilder, LiveFiguresStore } from '../../api/today/store.ts';
import { type Db, openDb } from '../../common/db/duckdb.ts';
import { createLogger } from '../../common/logger.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-today-per-org', level: 'silent' });
let db: Db | undefined;
afterEach(async () => {
  await db?.close();
  db = undefined;
});

/**
 * A store whose first build (org_busy's credits, asked for here) is running and held until `release`;
 * `before(n)` runs before the n-th build. `builds()`: how many have begun.
 */
async function firstBuildHeld(database: Db, before: (n: number) => void = () => undefined) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let running!: () => void;
  const firstRunning = new Promise<void>((r) => (running = r));
  let builds = 0;
  const builder: LiveBuilder = async (...args) => {
    const n = ++builds;
    if (n === 1) {
      running();
      await held;
    }
    before(n);
    return buildLiveFigures(...args);
  };
  const store = new LiveFiguresStore(database, log, Date.now, builder);
  const first = store.figures({ orgId: 'org_busy' }, 'credits');
  await firstRunning;
  return { store, first, release, builds: () => builds };
}

describe('live builds per organization', () => {
  it("one organization's long build does not hold another's", async () => {
    db = await openDb(join(tempDir(), 'today.duckdb'));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const heldOrgs: string[] = [];
    const builder: LiveBuilder = async (live, main, scope, now, logger, kind) => {
      if (scope.orgId === 'org_heavy') {
        heldOrgs.push(scope.orgId);
        await held;
      }
      return buildLiveFigures(live, main, scope, now, logger, kind);
    };
    const store = new LiveFiguresStore(db, log, Date.now, builder);
    let heavyDone = false;
    const heavy = store.figures({ orgId: 'org_heavy' }).then((f) => {
      heavyDone = true;
      return f;
    });
    const light = await store.figures({ orgId: 'org_light' });
    expect(light.date).toBe(new Date().toISOString().slice(0, 10));
    // The heavy build is still running (held) when the light one has answered.
    expect(heldOrgs).toEqual(['org_heavy']);
    expect(heavyDone).toBe(false);
    // A third organization is not held either: the held build takes one connection, not all.
    await store.figures({ orgId: 'org_third' });
    expect(heavyDone).toBe(false);
    release();
    expect((await heavy).date).toBe(light.date);
  });

  it("an organization's builds still run one at a time, sharing one that is running", async () => {
    db = await openDb(join(tempDir(), 'today.duckdb'));
    let running = 0;
    let most = 0;
    const builder: LiveBuilder = async (...args) => {
      running++;
      most = Math.max(most, running);
      try {
        return await buildLiveFigures(...args);
      } finally {
        running--;
      }
    };
    const store = new LiveFiguresStore(db, log, Date.now, builder);
    await Promise.all([
      store.figures({ orgId: 'org_a' }),
      store.figures({ orgId: 'org_a', userId: 'usr_1' }),
      store.figures({ orgId: 'org_a', userId: 'usr_2' }),
    ]);
    expect(most).toBe(1);
  });

  it('while records keep arriving, the requests behind a running build share the one build that waits', async () => {
    db = await openDb(join(tempDir(), 'today.duckdb'));
    const { store, first, release, builds } = await firstBuildHeld(db);
    // Collectors each ship, then ask for their status: records arrive between every two asks.
    const later: Promise<unknown>[] = [];
    for (let i = 0; i < 5; i++) {
      await new Promise((r) => setTimeout(r, 5));
      store.touch('org_busy');
      later.push(store.figures({ orgId: 'org_busy' }, 'credits'));
    }
    release();
    await first;
    const answers = await Promise.all(later);
    // One build after the running one, begun after the last records arrived, answers all five.
    expect(builds()).toBe(2);
    expect(new Set(answers).size).toBe(1);
    // It covers every record: the next ask, with nothing new, is answered without a build.
    expect(await store.figures({ orgId: 'org_busy' }, 'credits')).toBe(answers[0]);
    expect(builds()).toBe(2);
  });

  it('a waiting build that fails fails only the requests it was asked for; one that joined it later asks again', async () => {
    db = await openDb(join(tempDir(), 'today.duckdb'));
    const { store, first, release, builds } = await firstBuildHeld(db, (n) => {
      if (n === 2) throw new Error('the second build failed');
    });
    const outcome = (p: Promise<unknown>) =>
      p.then(
        () => 'figures',
        (error: Error) => error.message,
      );
    store.touch('org_busy');
    const asked = outcome(store.figures({ orgId: 'org_busy' }, 'credits'));
    store.touch('org_busy');
    const joined = outcome(store.figures({ orgId: 'org_busy' }, 'credits'));
    release();
    await first;
    // The build asked for fails its request; the request that joined it gets a build of its own.
    expect(await asked).toBe('the second build failed');
    expect(await joined).toBe('figures');
    expect(builds()).toBe(3);
  });
});
