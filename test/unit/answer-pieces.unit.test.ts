// An answer of pieces (api/answers/pieces.ts): its gzip form, the concatenation of the pieces' deflate
// forms between a gzip header and trailer, decodes (node's gunzip checks the CRC-32 and length) to its
// plain form, whatever the pieces: compressed alone, with the piece before as dictionary, or stored.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CachedBody, GZIP_LEVEL_KEPT, GZIP_LEVEL_ONCE } from '../../api/answers/cache.ts';
import { Pieces, piece, storedPiece } from '../../api/answers/pieces.ts';

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
