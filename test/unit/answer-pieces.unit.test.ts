// An answer of pieces (api/answers/pieces.ts): its gzip form, the concatenation of the pieces' deflate
// forms between a gzip header and trailer, decodes (node's gunzip checks the CRC-32 and length) to its
// plain form, whatever the pieces: compressed alone, with the piece before as dictionary, or stored.
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CachedBody, GZIP_LEVEL_KEPT, GZIP_LEVEL_ONCE } from '../../api/answers/cache.ts';
import { Chain, MAX_SPAN, type Piece, Pieces, piece, spans, storedPiece } from '../../api/answers/pieces.ts';

describe('Pieces', () => {
  it('gzip decodes to the plain bytes', () => {
    const day = (n: number) =>
      JSON.stringify({ date: `2026-03-${String(n).padStart(2, '0')}`, tokens: n * 1000, by_model: [{ model: 'm', n }] });
    const first = piece(day(1));
    const second = piece(`,${day(2)}`, first.raw);
    const third = piece(`,${day(3)}`, second.raw);
    const answer = new Pieces([storedPiece('{"data":['), first, second, third, storedPiece(',"é"'), storedPiece('],"meta":{}}')]);
    const raw = answer.raw().toString();
    expect(JSON.parse(raw).data).toHaveLength(4);
    expect(gunzipSync(answer.gzip()).toString()).toBe(raw);
    // With the dictionary, a piece like the one before it is smaller than alone.
    expect(second.deflated.length).toBeLessThan(piece(`,${day(2)}`).deflated.length);
  });

  it('stores a piece longer than one stored block in several, and an empty one', () => {
    const long = 'x'.repeat(200_000);
    const answer = new Pieces([storedPiece('"'), storedPiece(''), storedPiece(long), piece(long), storedPiece('"')]);
    expect(gunzipSync(answer.gzip()).toString()).toBe(`"${long}${long}"`);
  });

  it('a kept body is sent as pieces once, then compressed whole; one made for a request stays pieces', async () => {
    const rows = Array.from({ length: 300 }, (_, i) => JSON.stringify({ user_id: `usr_${i % 7}`, date: `2026-03-${(i % 28) + 1}`, n: i }));
    const answer = () => new Pieces([storedPiece('{"data":['), ...rows.map((r, i) => (i ? piece(`,${r}`) : piece(r))), storedPiece(']}')]);
    const kept = CachedBody.of(answer(), GZIP_LEVEL_KEPT);
    const counted: number[] = [];
    kept.onGzip = (bytes) => counted.push(bytes);
    const first = kept.gzip()!;
    await new Promise((r) => setImmediate(r));
    const whole = kept.gzip()!;
    expect(whole.length).toBeLessThan(first.length);
    expect(gunzipSync(whole).toString()).toBe(gunzipSync(first).toString());
    expect(counted.reduce((a, b) => a + b, 0)).toBe(whole.length);
    const once = CachedBody.of(answer(), GZIP_LEVEL_ONCE);
    const sent = once.gzip()!;
    await new Promise((r) => setImmediate(r));
    expect(once.gzip()).toBe(sent);
  });
});

describe('spans', () => {
  it('covers a run with aligned runs of 2^k elements, the largest that fit', () => {
    expect(spans(7, 8)).toEqual([[7, 1]]);
    expect(spans(3, 32)).toEqual([
      [3, 1],
      [4, 4],
      [8, 8],
      [16, 16],
    ]);
    expect(spans(0, 30)).toEqual([
      [0, 16],
      [16, 8],
      [24, 4],
      [28, 2],
    ]);
    // 5..34: 5 alone, 6-7, 8-15, 16-31, 32-33, 34.
    expect(spans(5, 35)).toEqual([
      [5, 1],
      [6, 2],
      [8, 8],
      [16, 16],
      [32, 2],
      [34, 1],
    ]);
    // None longer than MAX_SPAN, even where alignment would allow it.
    expect(MAX_SPAN).toBe(32);
    expect(spans(0, 100)).toEqual([
      [0, 32],
      [32, 32],
      [64, 32],
      [96, 4],
    ]);
  });
});

describe('Chain', () => {
  const element = (i: number) =>
    Buffer.from(JSON.stringify({ user_id: 'usr_1', date: `day ${i}`, tool_calls: (i * 37) % 11, languages: ['ts', 'py'].slice(i % 2) }));
  const answer = (chain: Chain, lo: number, hi: number) => {
    const pieces: Piece[] = [storedPiece('[')];
    chain.push(lo, hi, element, pieces);
    pieces.push(storedPiece(']'));
    return { pieces, body: new Pieces(pieces) };
  };
  const joined = (lo: number, hi: number) => `[${Array.from({ length: hi - lo }, (_, k) => element(lo + k).toString()).join(',')}]`;

  it('any run of its elements decodes to them joined by commas, from spans kept across runs', () => {
    const chain = new Chain();
    for (const [lo, hi] of [
      [0, 30],
      [1, 31],
      [17, 18],
      [5, 35],
      [40, 100],
      [0, 30],
    ] as const) {
      const { body } = answer(chain, lo, hi);
      expect(body.raw().toString()).toBe(joined(lo, hi));
      expect(gunzipSync(body.gzip()).toString()).toBe(joined(lo, hi));
    }
    // 0..29 and 1..30 share 16..23 (a span not first in either: the one after the element before it).
    const a = answer(chain, 0, 30).pieces;
    const b = answer(chain, 1, 31).pieces;
    expect(a[2]).toBe(b[5]);
    expect(a[2]!.length).toBe(joined(16, 24).length - 1); // its comma, not its brackets
  });

  it('compresses a run in a few pieces about as well as in one go, and better than element by element', () => {
    const chain = new Chain();
    const { pieces, body } = answer(chain, 3, 33);
    expect(pieces).toHaveLength(2 + spans(3, 33).length);
    const sent = body.gzip().length;
    // Element by element, each with the one before as dictionary (the former layout).
    let prev: Buffer | undefined;
    let perElement = 0;
    for (let i = 3; i < 33; i++) {
      const text = i === 3 ? element(i) : Buffer.concat([Buffer.from(','), element(i)]);
      perElement += piece(text, prev).deflated.length;
      prev = element(i);
    }
    expect(sent).toBeLessThan(perElement);
    expect(sent).toBeLessThan(1.5 * gzipSync(joined(3, 33)).length);
  });
});
