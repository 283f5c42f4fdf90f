// Analytics responses only change when a batch finishes (they read the aggregates, never raw events), so
// a serialized response can be served again until then. The batch clears the cache when it commits.
// Entries are bytes, ready to write, and their gzip form is made once, for the first client that accepts
// it: a 30-day response of a large organization runs to megabytes of JSON, and writing those bytes, not
// computing them, is what a cached request costs.
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
  constructor(private readonly maxEntries = 2000) {}

  get(key: string): CachedBody | undefined {
    return this.entries.get(key);
  }

  /** Stores the body (when the cache is on) and returns it as an entry either way. */
  set(key: string, body: string): CachedBody {
    const entry = new CachedBody(Buffer.from(body));
    if (this.maxEntries <= 0) return entry;
    // Oldest first out: Map keeps insertion order.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, entry);
    return entry;
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
