// An answer of pieces (api/answers/pieces.ts): its gzip form, the concatenation of the pieces' deflate
// forms between a gzip header and trailer, decodes (node's gunzip checks the CRC-32 and length) to its
// plain form, whatever the pieces: compressed alone, with the piece before as dictionary, or stored.
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
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
});
