// Finds the records the server cannot store in a batch it refuses as a whole, by sending it again in
// halves: the halves that are stored are acknowledged as usual, and only the records that fail alone are
// handed back as rejected, with the server's answer as the reason (the caller quarantines them in
// spool/bad/). One bad record then costs about 2·log2(n) requests instead of stalling every record after it.
//
// A 422 says the batch's content is at fault (api/ingest/routes.ts): it is narrowed at once and to the
// end. A 5xx may be the content (a server bug one record triggers) or the server itself (a full disk, a
// restart): a record that fails alone is counted as rejected only once some other part of the batch was
// stored meanwhile, proof that the server can store; while nothing was stored, a few failed requests end
// the narrowing and the whole batch is retried later, so a sick server never costs a good record.
import type { IngestResponse } from '../common/wire.ts';
import { ShipError } from './shipper.ts';

/** Tries of a single record that fails with a 5xx before it counts as rejected (a blip must not). */
export const SINGLE_TRIES = 3;

export interface NarrowOptions {
  /** Posts the records at these indexes of the batch as one request; throws ShipError when it fails. */
  post: (indexes: readonly number[]) => Promise<IngestResponse>;
  /** Waits before the next try of a single record (backoff). */
  wait: (attempt: number) => Promise<void>;
  /** Whether to give up now (the collector is stopping). */
  stopped: () => boolean;
}

export type NarrowResult =
  | { kind: 'answer'; answer: IngestResponse; requests: number }
  | { kind: 'error'; error: string; requests: number };

/**
 * A failure narrowing applies to: the batch, not the connection, the credential or a busy server (a 429,
 * or a 503 with Retry-After: the batch is sent again whole once the wait is over, never split for it).
 * A 413 (the batch inflates past the server's cap) is one: its halves are smaller.
 */
export const isBatchFault = (error: unknown): error is ShipError & { status: number } =>
  error instanceof ShipError &&
  error.status !== undefined &&
  !error.busy &&
  (error.status === 422 || error.status === 413 || (error.status >= 500 && error.status <= 599));

/** A failure that says the content is at fault, so narrowing starts at once: 422, or 413 (too large). */
export const isContentFault = (error: ShipError & { status: number }): boolean => error.status === 422 || error.status === 413;

class GiveUp extends Error {}

/**
 * Sends the batch of `size` records again in halves, depth first, after the whole of it failed with
 * `failure` (a batch fault). Resolves with one answer for the whole batch (indexes of the whole batch)
 * or with an error when the narrowing cannot tell a bad record from a failing server.
 */
export async function narrowBatch(size: number, failure: ShipError & { status: number }, options: NarrowOptions): Promise<NarrowResult> {
  const answer: IngestResponse = { received: 0, stored: 0, duplicates: 0, rejected: [] };
  const suspects: { index: number; error: ShipError & { status: number } }[] = [];
  let answered = false;
  let requests = 0;
  // Failed requests allowed before any part was stored: enough to walk down to one record and try it and
  // its neighbour, not the thousands of requests a server failing everything would otherwise get.
  let blindBudget = Math.ceil(Math.log2(Math.max(size, 2))) + 2 * SINGLE_TRIES + 2;

  const part = async (indexes: readonly number[]): Promise<void> => {
    const tries = indexes.length === 1 ? SINGLE_TRIES : 1;
    let last: (ShipError & { status: number }) | undefined;
    for (let attempt = 0; attempt < tries; attempt++) {
      if (options.stopped()) throw new GiveUp('stopped while narrowing a refused batch down');
      requests++;
      try {
        const got = await options.post(indexes);
        answered = true;
        answer.received += got.received;
        answer.stored += got.stored;
        answer.duplicates += got.duplicates;
        for (const r of got.rejected) {
          const index = indexes[r.index];
          if (index !== undefined) answer.rejected.push({ ...r, index });
        }
        return;
      } catch (error) {
        if (!isBatchFault(error)) throw new GiveUp(error instanceof Error ? error.message : String(error));
        last = error;
        if (isContentFault(error)) break;
        if (!answered && --blindBudget < 0)
          throw new GiveUp(`${error.message} (every part of the batch failed: the server, not a record, is at fault)`);
        if (attempt + 1 < tries) await options.wait(attempt);
      }
    }
    if (indexes.length === 1) {
      suspects.push({ index: indexes[0]!, error: last! });
      return;
    }
    const mid = Math.ceil(indexes.length / 2);
    await part(indexes.slice(0, mid));
    await part(indexes.slice(mid));
  };

  const all = Array.from({ length: size }, (_, i) => i);
  try {
    if (size === 1) {
      // The whole batch was this record: it already failed; a 422 says enough, a 5xx is tried again.
      if (isContentFault(failure)) suspects.push({ index: 0, error: failure });
      else await part(all);
    } else {
      const mid = Math.ceil(size / 2);
      await part(all.slice(0, mid));
      await part(all.slice(mid));
    }
  } catch (error) {
    if (error instanceof GiveUp) return { kind: 'error', error: error.message, requests };
    throw error;
  }
  const unproven = suspects.filter((s) => !isContentFault(s.error));
  if (unproven.length && !answered)
    return {
      kind: 'error',
      error: `${unproven[0]!.error.message} (no part of the batch was stored: the server, not a record, may be at fault)`,
      requests,
    };
  for (const { index, error } of suspects) {
    answer.received++;
    answer.rejected.push({ index, reason: `${error.message} (the record failed on its own when the batch was sent in halves)` });
  }
  answer.rejected.sort((a, b) => a.index - b.index);
  return { kind: 'answer', answer, requests };
}
