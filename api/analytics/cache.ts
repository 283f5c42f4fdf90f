// Analytics responses only change when a batch finishes (they read the aggregates, never raw events), so
// a serialized response can be served again until then. The batch clears the cache when it commits.
export class ResponseCache {
  private readonly entries = new Map<string, string>();
  constructor(private readonly maxEntries = 2000) {}

  get(key: string): string | undefined {
    return this.entries.get(key);
  }

  set(key: string, body: string): void {
    if (this.maxEntries <= 0) return;
    // Oldest first out: Map keeps insertion order.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, body);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
