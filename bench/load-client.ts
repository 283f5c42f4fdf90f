// Closed-loop HTTP load, run as its own process by bench/run.ts: `concurrency` keep-alive connections,
// each sending its next request when the last answered. A process of its own, because the bench process
// has just generated 10M events and run the batch in DuckDB: a client sharing that process slows every
// server it measures (the bare route included), and the servers that send more bytes the most.
// Input: one JSON argument (LoadRequest). Output: one JSON line (LoadResult) on stdout.
import { Agent, request as httpRequest } from 'node:http';
import { z } from 'zod';

const LoadRequest = z.strictObject({
  base: z.string().url(),
  paths: z.array(z.string()).min(1),
  headers: z.record(z.string(), z.string()),
  seconds: z.number().positive(),
  concurrency: z.number().int().positive(),
});

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** Mean bytes of a response body as received (compressed when the server compressed it). */
  bytes: number;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

async function load({ base, paths, headers, seconds, concurrency }: z.infer<typeof LoadRequest>): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL(base);
  const latencies: number[] = [];
  let errors = 0;
  let bytes = 0;
  let n = 0;
  const until = performance.now() + seconds * 1000;
  const one = (path: string) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const req = httpRequest({ host: url.hostname, port: url.port, path, agent, headers }, (res) => {
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () => {
          if (res.statusCode !== 200) errors++;
          latencies.push(performance.now() - started);
          resolve();
        });
      });
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end();
    });
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) await one(paths[n++ % paths.length]!);
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    seconds: elapsed,
    rps: latencies.length / elapsed,
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    errors,
    bytes: bytes / Math.max(1, latencies.length),
  };
}

process.stdout.write(`${JSON.stringify(await load(LoadRequest.parse(JSON.parse(process.argv[2]!))))}\n`);
