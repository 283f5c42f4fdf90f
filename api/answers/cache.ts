// The answer cache of every read route: serialized answers kept until what they are built from changes.
// Each entry says its organization and what it reads (api/answers/changes.ts): the daily answers read the
// aggregates, so they live until a batch commits; today's answers read arriving records too, so they live
// until the next records of their organization. Entries are bytes, ready to write, and their gzip form is
// made once, for the first client that accepts it: a 30-day answer of a large organization runs to
// megabytes of JSON, and writing those bytes, not computing them, is what a cached request costs.
//
// A miss is built once however many ask for it at the same time: a dashboard opened after the nightly
// batch sends its tiles' queries together, often the same URL from several viewers. Those asking while
// it runs wait for that one build. api/answers/answer.ts makes the keys and serves the bytes.
import { gzipSync } from 'node:zlib';
import { type CacheLimits, DEFAULT_CACHE_LIMITS } from '../../common/serve-defaults.ts';
import { ALL_SOURCES, type Holder, type Source } from './changes.ts';
import { Pieces } from './pieces.ts';

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
  private plain: Buffer | undefined;
  /** Told the size of the gzip form when it is made (and its change when made again), so the cache can count it. */
  onGzip: ((bytes: number) => void) | undefined;
  constructor(
    /** JSON bytes, or pieces whose gzip form is their deflate forms' concatenation (api/answers/pieces.ts). */
    private readonly body: Buffer | Pieces,
    private readonly level = GZIP_LEVEL_KEPT,
  ) {}

  /** An answer's body from its JSON text or its pieces. */
  static of(body: string | Pieces, level = GZIP_LEVEL_KEPT): CachedBody {
    return new CachedBody(typeof body === 'string' ? Buffer.from(body) : body, level);
  }

  /** The plain bytes (an answer of pieces: joined at the first ask; a gzip client never asks). */
  get raw(): Buffer {
    return (this.plain ??= this.body instanceof Pieces ? this.body.raw() : this.body);
  }

  private get rawLength(): number {
    return this.body.length;
  }

  /** The gzip form, or undefined when the body is too small to be worth it. */
  gzip(): Buffer | undefined {
    if (this.rawLength < GZIP_MIN_BYTES) return undefined;
    if (!this.gzipped) {
      const pieces = this.body instanceof Pieces ? this.body : undefined;
      this.gzipped = pieces ? pieces.gzip() : gzipSync(this.raw, { level: this.level });
      this.onGzip?.(this.gzipped.length);
      // Pieces compress less than a whole answer (a /users page on the bench's data: 22.4 KiB against
      // 8.6, each user's first span compressed alone and its meta stored as is): a body that is
      // kept is sent as pieces the first time, then compressed whole, once, after that request.
      if (pieces && this.level !== GZIP_LEVEL_ONCE) setImmediate(() => this.compressWhole());
    }
    return this.gzipped;
  }

  private compressWhole(): void {
    const whole = gzipSync(this.raw, { level: this.level });
    const before = this.gzipped?.length ?? 0;
    this.gzipped = whole;
    this.onGzip?.(whole.length - before);
  }

  get bytes(): number {
    return this.rawLength + (this.gzipped?.length ?? 0);
  }
}

/** Where an answer belongs and what it is built from: what a change drops it by (api/answers/changes.ts). */
export interface AnswerScope {
  org: string;
  reads: readonly Source[];
}

interface Entry {
  body: CachedBody;
  scope: AnswerScope;
}

export class ResponseCache implements Holder {
  /** It holds answers of every kind: each entry says what it reads. */
  readonly reads = ALL_SOURCES;
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;
  /** Builds under way, by key: a second request for a missing key waits for the first one's build. */
  private readonly building = new Map<string, { promise: Promise<CachedBody>; scope: AnswerScope }>();
  /**
   * Bumped by forget(), by source for every organization and by organization and source: a build that
   * began before a change of what it reads (a batch committed, records arrived) answers the requests that
   * waited for it but is not kept.
   */
  private readonly generations = new Map<string, number>();
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
    return this.entries.get(key)?.body;
  }

  /**
   * The cached body for key, or the one build() makes (shared by everyone asking meanwhile). A failed
   * build (a 400, a database error) is not kept: each waiter gets its error, and the next request tries
   * again. With the cache off every request builds its own. Without a scope, the answer is the
   * organization's its key starts with (before the first "|") and reads everything.
   */
  getOrBuild(
    key: string,
    build: () => Promise<string | Pieces>,
    scope: AnswerScope = { org: key.slice(0, Math.max(0, key.indexOf('|'))), reads: ALL_SOURCES },
  ): CachedBody | Promise<CachedBody> {
    const hit = this.entries.get(key);
    if (hit) {
      this.stats.hits++;
      return hit.body;
    }
    this.stats.misses++;
    if (this.off) return build().then((body) => CachedBody.of(body, GZIP_LEVEL_ONCE));
    const running = this.building.get(key);
    if (running) return running.promise;
    const stamp = this.stamp(scope);
    const promise = build()
      .then((body) => {
        const entry = CachedBody.of(body);
        if (stamp === this.stamp(scope)) this.store(key, { body: entry, scope });
        return entry;
      })
      .finally(() => {
        if (this.building.get(key)?.promise === promise) this.building.delete(key);
      });
    this.building.set(key, { promise, scope });
    return promise;
  }

  private store(key: string, entry: Entry): void {
    // An answer larger than the whole budget is served but not kept: it would push out everything else.
    if (entry.body.bytes > this.limits.maxBytes) return;
    entry.body.onGzip = (bytes) => {
      if (this.entries.get(key) !== entry) return;
      this.bytes += bytes;
      this.evict();
    };
    this.entries.set(key, entry);
    this.bytes += entry.body.bytes;
    this.evict();
  }

  /** Oldest first out (a Map keeps insertion order) until both limits hold. */
  private evict(): void {
    while (this.entries.size > this.limits.maxEntries || this.bytes > this.limits.maxBytes) {
      const [key, oldest] = this.entries.entries().next().value!;
      this.entries.delete(key);
      this.bytes -= oldest.body.bytes;
    }
  }

  /** What a build compares with when it ends: the generations of what it reads, of all and of its organization. */
  private stamp(scope: AnswerScope): string {
    return scope.reads.map((s) => `${this.generations.get(`*|${s}`) ?? 0}.${this.generations.get(`${scope.org}|${s}`) ?? 0}`).join(',');
  }

  private bump(name: string): void {
    this.generations.set(name, (this.generations.get(name) ?? 0) + 1);
  }

  /**
   * Forgets the answers (kept, and builds under way) of one organization, or of every one, that read a
   * stale source; the others stay.
   */
  forget(org: string | undefined, stale: ReadonlySet<Source>): void {
    for (const source of stale) this.bump(`${org ?? '*'}|${source}`);
    const hit = (scope: AnswerScope) => (org === undefined || scope.org === org) && scope.reads.some((s) => stale.has(s));
    for (const [key, entry] of this.entries) {
      if (!hit(entry.scope)) continue;
      this.entries.delete(key);
      this.bytes -= entry.body.bytes;
    }
    for (const [key, { scope }] of this.building) if (hit(scope)) this.building.delete(key);
  }

  /** Forgets one organization's answers, whatever they read. */
  clearOrg(org: string): void {
    this.forget(org, new Set(ALL_SOURCES));
  }

  /** Forgets every answer and every build under way. */
  clear(): void {
    this.forget(undefined, new Set(ALL_SOURCES));
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes held, plain and gzip forms together. */
  get heldBytes(): number {
    return this.bytes;
  }
}
