// Abusive ingest requests against a real server process, and what they cost it: the `bombs` section of
// `npm run bench`, and the figures test/integration/ingest-abuse.integration.test.ts holds the server to.
//   - a gzip body of newlines only (a few hundred KB inflating to hundreds of MB),
//   - a gzip body of valid-looking records each naming 1,000 files,
//   - several of each at once, from several keys of one organization,
// while another organization sends a 4-record batch every 100 ms. Measured: each bomb's status and time
// to answer, the server's peak resident memory over its resident memory before (Linux /proc), and the
// other organization's slowest batch.
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

export interface BombSizes {
  /** MiB of newlines in the newline bomb. */
  newlineMiB: number;
  /** Records in the files bomb (each names 1,000 files, ~26 KB of NDJSON). */
  fileRecords: number;
  /** Bombs of each kind sent at once in the "several at once" round. */
  concurrent: number;
}

export const FULL_BOMBS: BombSizes = { newlineMiB: 256, fileRecords: 4000, concurrent: 4 };

export interface BombAnswer {
  status: number;
  ms: number;
  retryAfter?: string;
  /** The error body's detail, cut short. */
  detail?: string;
}

export interface BombFigures {
  newlineBomb: BombAnswer & { gzipBytes: number };
  filesBomb: BombAnswer & { gzipBytes: number };
  /** The "several at once" round: every answer, and the slowest. */
  concurrent: { answers: BombAnswer[]; slowestMs: number };
  /** The other organization's batches sent during the bombs: each one's time to be stored. */
  otherOrg: { batches: number; stored: number; slowestMs: number; medianMs: number };
  /** Resident memory of the server before the bombs and at its peak during them (MB); undefined without /proc. */
  rssBeforeMB?: number | undefined;
  peakRssMB?: number | undefined;
  peakGrowthMB?: number | undefined;
}

const T = Date.UTC(2026, 2, 1, 12);
const event = (id: string, extra: Record<string, unknown> = {}) => ({
  kind: 'event',
  id,
  agent: 'claude',
  event: 'PostToolUse',
  ts: T,
  session_id: 'bomb-session',
  client: 'terminal-ui',
  autonomy: 'manual',
  tool_name: 'Edit',
  tool_success: true,
  ...extra,
});

/** Gzip of `mib` MiB of newlines, compressed a MiB at a time so the sender never holds it inflated. */
export function newlineBomb(mib: number): Buffer {
  const chunk = Buffer.alloc(1024 * 1024, '\n');
  const parts: Buffer[] = [];
  // Compressing one MiB compresses every MiB alike: a gzip member per MiB, concatenated (RFC 1952 allows it).
  const member = gzipSync(chunk, { level: 9 });
  for (let i = 0; i < mib; i++) parts.push(member);
  return Buffer.concat(parts);
}

/** Gzip of `records` records, each naming 1,000 files. */
export function filesBomb(records: number, prefix = 'bomb'): Buffer {
  const files = Array.from({ length: 1000 }, () => ({ ext: 'ts', op: 'edit' }));
  const lines: string[] = [];
  for (let i = 0; i < records; i++) lines.push(JSON.stringify(event(`${prefix}-${i}`, { files })));
  return gzipSync(`${lines.join('\n')}\n`, { level: 9 });
}

/** Resets a process's peak resident memory (VmHWM) to its resident memory now (Linux 4.0+; ignored elsewhere). */
export function resetPeak(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // No /proc, or an older kernel: the peak then includes the server's start.
  }
}

/** Resident memory of a process now and at its peak (MB), from /proc/<pid>/status; undefined elsewhere. */
export function residentMB(pid: number): { rss: number; peak: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]);
    const rss = kb('VmRSS');
    const peak = kb('VmHWM');
    return Number.isFinite(rss) && Number.isFinite(peak) ? { rss: rss / 1024, peak: peak / 1024 } : undefined;
  } catch {
    return undefined;
  }
}

async function send(url: string, key: string, body: Buffer, gzip = true): Promise<BombAnswer> {
  const started = performance.now();
  try {
    const response = await fetch(`${url}/api/v1/ingest/events`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/x-ndjson',
        ...(gzip ? { 'content-encoding': 'gzip' } : {}),
      },
      body,
    });
    const text = await response.text();
    const ms = performance.now() - started;
    let detail: string | undefined;
    try {
      detail = String((JSON.parse(text) as { detail?: unknown }).detail ?? '').slice(0, 160) || undefined;
    } catch {
      detail = text.slice(0, 160) || undefined;
    }
    const retryAfter = response.headers.get('retry-after') ?? undefined;
    return { status: response.status, ms, ...(retryAfter ? { retryAfter } : {}), ...(detail ? { detail } : {}) };
  } catch (error) {
    // The server closed the connection (a body it refused before reading it all): status 0.
    return { status: 0, ms: performance.now() - started, detail: (error as Error).message };
  }
}

/**
 * Sends the bombs to the server at `url` (process `pid`): one newline bomb, one files bomb, then
 * `concurrent` of each at once from the attacker keys in turn, while `victimKey` (another organization)
 * sends a 4-record batch every 100 ms.
 */
export async function runBombs(options: {
  url: string;
  pid: number;
  attackerKeys: string[];
  victimKey: string;
  sizes: BombSizes;
}): Promise<BombFigures> {
  const { url, pid, attackerKeys, victimKey, sizes } = options;
  const newline = newlineBomb(sizes.newlineMiB);
  const files = filesBomb(sizes.fileRecords);
  // Warm-up: the decode workers start at their first batches; the memory before is measured after them.
  let victimBatch = 0;
  const victimBody = () => {
    const n = victimBatch++;
    return gzipSync(`${Array.from({ length: 4 }, (_, i) => JSON.stringify(event(`victim-${n}-${i}`))).join('\n')}\n`);
  };
  // Two plain bodies over the size decoded on the event loop (api/ingest/routes.ts), at once: both workers.
  const warm = (n: number) => Buffer.from(`${Array.from({ length: 300 }, (_, i) => JSON.stringify(event(`warm-${n}-${i}`))).join('\n')}\n`);
  await Promise.all([send(url, victimKey, warm(0), false), send(url, victimKey, warm(1), false)]);
  resetPeak(pid);
  const before = residentMB(pid);

  const victimTimes: number[] = [];
  let victimStored = 0;
  let attacking = true;
  const victim = (async () => {
    while (attacking) {
      const answer = await send(url, victimKey, victimBody());
      victimTimes.push(answer.ms);
      if (answer.status === 200) victimStored++;
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  const newlineAnswer = await send(url, attackerKeys[0]!, newline);
  const filesAnswer = await send(url, attackerKeys[0]!, files);
  const many: Promise<BombAnswer>[] = [];
  for (let i = 0; i < sizes.concurrent; i++) {
    many.push(send(url, attackerKeys[(2 * i) % attackerKeys.length]!, newline));
    many.push(send(url, attackerKeys[(2 * i + 1) % attackerKeys.length]!, files));
  }
  const answers = await Promise.all(many);
  // A last victim batch after the round, so the victim's figures cover all of it.
  await new Promise((r) => setTimeout(r, 200));
  attacking = false;
  await victim;
  const after = residentMB(pid);
  const sorted = [...victimTimes].sort((a, b) => a - b);
  return {
    newlineBomb: { ...newlineAnswer, gzipBytes: newline.length },
    filesBomb: { ...filesAnswer, gzipBytes: files.length },
    concurrent: { answers, slowestMs: Math.max(...answers.map((a) => a.ms)) },
    otherOrg: {
      batches: victimTimes.length,
      stored: victimStored,
      slowestMs: sorted.at(-1) ?? 0,
      medianMs: sorted[Math.floor(sorted.length / 2)] ?? 0,
    },
    rssBeforeMB: before?.rss,
    peakRssMB: after?.peak,
    peakGrowthMB: before && after ? after.peak - before.rss : undefined,
  };
}
