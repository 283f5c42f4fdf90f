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

/** Below this, compressing costs more than the bytes it saves. */
const GZIP_MIN_BYTES = 1024;

export class CachedBody {
  private gzipped: Buffer | undefined;
  constructor(readonly raw: Buffer) {}

  /** The gzip form, or undefined when the body is too small to be worth it. */
  gzip(): Buffer | undefined {
    if (this.raw.length < GZIP_MIN_BYTES) return undefined;
    this.gzipped ??= gzipSync(this.raw, { level: 6 });
    return this.gzipped;
  }
}

export class ResponseCache {
  private readonly entries = new Map<string, CachedBody>();
  /** Builds under way, by key: a second request for a missing key waits for the first one's build. */
  private readonly building = new Map<string, Promise<CachedBody>>();
  /**
   * Bumped by clear(): a build that began before a batch committed read the old aggregates, so it answers
   * the requests that waited for it but is not kept.
   */
  private generation = 0;
  constructor(private readonly maxEntries = 2000) {}

  get(key: string): CachedBody | undefined {
    return this.entries.get(key);
  }

  /**
   * The cached body for key, or the one build() makes (shared by everyone asking meanwhile). A failed
   * build (a 400, a database error) is not kept: each waiter gets its error, and the next request tries
   * again. With the cache off (maxEntries 0) every request builds its own.
   */
  getOrBuild(key: string, build: () => Promise<string>): CachedBody | Promise<CachedBody> {
    const hit = this.entries.get(key);
    if (hit) return hit;
    if (this.maxEntries <= 0) return build().then((body) => new CachedBody(Buffer.from(body)));
    const running = this.building.get(key);
    if (running) return running;
    const generation = this.generation;
    const promise = build()
      .then((body) => {
        const entry = new CachedBody(Buffer.from(body));
        if (generation === this.generation) this.store(key, entry);
        return entry;
      })
      .finally(() => {
        if (this.building.get(key) === promise) this.building.delete(key);
      });
    this.building.set(key, promise);
    return promise;
  }

  private store(key: string, entry: CachedBody): void {
    // Oldest first out: Map keeps insertion order.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
  }

  /** Forgets every entry and every build under way (a batch committed: they hold the old figures). */
  clear(): void {
    this.generation++;
    this.entries.clear();
    this.building.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
