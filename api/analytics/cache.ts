// Analytics responses only change when a batch finishes (they read the aggregates, never raw events), so
// a serialized response can be served again until then. The batch clears the cache when it commits.
// Entries are bytes, ready to write, and their gzip form is made once, for the first client that accepts
// it: a 30-day response of a large organization runs to megabytes of JSON, and writing those bytes, not
// computing them, is what a cached request costs.
//
// A miss is built once however many ask for it at the same time: a dashboard opened after the nightly
// batch sends its tiles' queries together, often the same URL from several viewers, and each build reads
// DuckDB for tens of milliseconds. Those asking while it runs wait for that one build.
import { gzipSync } from 'node:zlib';
import { type CacheLimits, DEFAULT_CACHE_LIMITS } from '../../common/serve-defaults.ts';

/** Below this, compressing costs more than the bytes it saves. */
const GZIP_MIN_BYTES = 1024;

/**
 * gzip levels: a body that is kept is compressed once and sent many times, so it takes the default level;
 * one that is not (the cache off) is compressed for every request, and level 1 costs a third of level 6's
 * CPU (a 187 KB tokens answer: 1.0 against 2.7 ms) for 9% more bytes.
 */
export const GZIP_LEVEL_KEPT = 6;
export const GZIP_LEVEL_ONCE = 1;

export { type CacheLimits, DEFAULT_CACHE_LIMITS } from '../../common/serve-defaults.ts';

/** Does an Accept-Encoding header take gzip? (`gzip`, `gzip;q=0.8`, `*`; not `gzip;q=0`.) */
export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  const weights = new Map<string, number>();
  for (const part of header.toLowerCase().split(',')) {
    const [coding, ...params] = part.split(';').map((p) => p.trim());
    const q = params.find((p) => p.startsWith('q='));
    weights.set(coding!, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  return (weights.get('gzip') ?? weights.get('*') ?? 0) > 0;
}

export class CachedBody {
  private gzipped: Buffer | undefined;
  /** Told the size of the gzip form when it is made, so the cache can count it. */
  onGzip: ((bytes: number) => void) | undefined;
  constructor(
    readonly raw: Buffer,
    private readonly level = GZIP_LEVEL_KEPT,
  ) {}

  /** The gzip form, or undefined when the body is too small to be worth it. */
  gzip(): Buffer | undefined {
    if (this.raw.length < GZIP_MIN_BYTES) return undefined;
    if (!this.gzipped) {
      this.gzipped = gzipSync(this.raw, { level: this.level });
      this.onGzip?.(this.gzipped.length);
    }
    return this.gzipped;
  }

  get bytes(): number {
    return this.raw.length + (this.gzipped?.length ?? 0);
  }
}

/** The organization a cache key belongs to: the part before the first "|". */
const orgOfKey = (key: string) => key.slice(0, Math.max(0, key.indexOf('|')));

export class ResponseCache {
  private readonly entries = new Map<string, CachedBody>();
  private bytes = 0;
  /** Builds under way, by key: a second request for a missing key waits for the first one's build. */
  private readonly building = new Map<string, Promise<CachedBody>>();
  /**
   * Bumped by clear(): a build that began before a batch committed read the old aggregates, so it answers
   * the requests that waited for it but is not kept.
   */
  private generation = 0;
  private readonly limits: CacheLimits;
  /** Lookups answered from memory, and the others (built, or joined a build): read by /metrics. */
  readonly stats = { hits: 0, misses: 0 };

  constructor(limits: Partial<CacheLimits> = {}) {
    this.limits = { ...DEFAULT_CACHE_LIMITS, ...limits };
  }

  private get off(): boolean {
    return this.limits.maxEntries <= 0 || this.limits.maxBytes <= 0;
  }

  get(key: string): CachedBody | undefined {
    return this.entries.get(key);
  }

  /**
   * The cached body for key, or the one build() makes (shared by everyone asking meanwhile). A failed
   * build (a 400, a database error) is not kept: each waiter gets its error, and the next request tries
   * again. With the cache off every request builds its own.
   */
  getOrBuild(key: string, build: () => Promise<string>): CachedBody | Promise<CachedBody> {
    const hit = this.entries.get(key);
    if (hit) {
      this.stats.hits++;
      return hit;
    }
    this.stats.misses++;
    if (this.off) return build().then((body) => new CachedBody(Buffer.from(body), GZIP_LEVEL_ONCE));
    const running = this.building.get(key);
    if (running) return running;
    const stamp = this.stamp(key);
    const promise = build()
      .then((body) => {
        const entry = new CachedBody(Buffer.from(body));
        if (stamp === this.stamp(key)) this.store(key, entry);
        return entry;
      })
      .finally(() => {
        if (this.building.get(key) === promise) this.building.delete(key);
      });
    this.building.set(key, promise);
    return promise;
  }

  private store(key: string, entry: CachedBody): void {
    // An answer larger than the whole budget is served but not kept: it would push out everything else.
    if (entry.bytes > this.limits.maxBytes) return;
    entry.onGzip = (bytes) => {
      if (this.entries.get(key) !== entry) return;
      this.bytes += bytes;
      this.evict();
    };
    this.entries.set(key, entry);
    this.bytes += entry.bytes;
    this.evict();
  }

  /** Oldest first out (a Map keeps insertion order) until both limits hold. */
  private evict(): void {
    while (this.entries.size > this.limits.maxEntries || this.bytes > this.limits.maxBytes) {
      const [key, oldest] = this.entries.entries().next().value!;
      this.entries.delete(key);
      this.bytes -= oldest.bytes;
    }
  }

  /** Bumped by clearOrg(org), by organization: like generation, for the keys of one organization. */
  private readonly orgGenerations = new Map<string, number>();
  /** What a build of `key` compares with when it ends: changed by clear() and by clearOrg of its organization. */
  private stamp(key: string): string {
    return `${this.generation}.${this.orgGenerations.get(orgOfKey(key)) ?? 0}`;
  }

  /**
   * Forgets one organization's entries and builds under way (a batch of that organization alone
   * committed); the others' stay. Keys start with the organization and "|" (api/analytics/routes.ts).
   */
  clearOrg(org: string): void {
    this.orgGenerations.set(org, (this.orgGenerations.get(org) ?? 0) + 1);
    for (const [key, entry] of this.entries) {
      if (orgOfKey(key) !== org) continue;
      this.entries.delete(key);
      this.bytes -= entry.bytes;
    }
    for (const key of this.building.keys()) if (orgOfKey(key) === org) this.building.delete(key);
  }

  /** Forgets every entry and every build under way (a batch committed: they hold the old figures). */
  clear(): void {
    this.generation++;
    this.orgGenerations.clear();
    this.entries.clear();
    this.building.clear();
    this.bytes = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes held, plain and gzip forms together. */
  get heldBytes(): number {
    return this.bytes;
  }
}
