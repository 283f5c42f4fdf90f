// An answer made of pieces of JSON kept from one request to the next (a day's record, a user's day row),
// each with its deflate form, so that sending it costs concatenation, not serializing and compressing a
// 200-300 KB answer. A piece's deflate form ends with a sync flush (byte-aligned, not final), so the forms
// of consecutive pieces concatenate into one deflate stream; the gzip body is that stream between the
// gzip header and trailer (RFC 1952: CRC-32 and length of the uncompressed bytes), ended by an empty final
// block. A piece that always follows the same piece in an answer may be compressed with that piece as its
// dictionary (its back-references reach into it, which a decoder has just written), so the answer
// compresses about as well as in one go. The bytes a client decodes are those of the plain form.
import { constants, crc32, deflateRawSync } from 'node:zlib';

/** Consecutive days' records and a user's consecutive days are alike: level 6 finds it, once per piece. */
const LEVEL = 6;

export interface Piece {
  /** The JSON bytes (a span of a chain: joined when asked, since a span's elements are kept already). */
  readonly raw: Buffer;
  /** Bytes of `raw`. */
  length: number;
  /** Raw deflate of `raw`, ending with a sync flush. */
  deflated: Buffer;
  /** CRC-32 of `raw`, and x^(8 × its length) modulo the CRC polynomial: what appending it does to a CRC. */
  crc: number;
  shift: number;
}

// CRC-32 of a concatenation from its parts' CRCs (zlib's crc32_combine, RFC 1952's polynomial, reflected):
// the CRC of A then B is (CRC(A) × x^(8·|B|)) mod P, plus CRC(B). Kept per piece, so that an answer's CRC
// costs a few operations a piece rather than a pass over its bytes.
const POLY = 0xedb88320 | 0;

/** a × b modulo P, both polynomials in the reflected representation (as int32: small integers to V8). */
function multmodp(a: number, b: number): number {
  let m = 1 << 31;
  let p = 0;
  for (;;) {
    if (a & m) {
      p ^= b;
      if ((a & (m - 1)) === 0) break;
    }
    m >>>= 1;
    b = b & 1 ? (b >>> 1) ^ POLY : b >>> 1;
  }
  return p;
}

/** x^(2^k) modulo P for k = 0..31. */
const X2N: number[] = [1 << 30];
for (let k = 1; k < 32; k++) X2N.push(multmodp(X2N[k - 1]!, X2N[k - 1]!));

/** x^(8·bytes) modulo P. */
function shiftOf(bytes: number): number {
  let p = 1 << 31;
  for (let n = bytes, k = 3; n > 0; n = Math.floor(n / 2), k++) if (n % 2) p = multmodp(X2N[k % 32]!, p);
  return p;
}

const made = (raw: Buffer, deflated: Buffer): Piece => ({
  raw,
  length: raw.length,
  deflated,
  crc: crc32(raw) | 0,
  shift: shiftOf(raw.length),
});

/** A piece of JSON text, compressed alone or (`after`) with the piece it always follows as dictionary. */
export function piece(text: string | Buffer, after?: Buffer): Piece {
  const raw = typeof text === 'string' ? Buffer.from(text) : text;
  const options = { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH, ...(after ? { dictionary: after } : {}) };
  return made(raw, deflateRawSync(raw, options));
}

/** Most bytes of one stored (uncompressed) deflate block. */
const MAX_STORED = 0xffff;

/**
 * A piece made for one answer (its envelope, its meta): stored uncompressed, since it is small and
 * compressing it would cost more than its bytes.
 */
export function storedPiece(text: string): Piece {
  const bytes = Buffer.byteLength(text);
  if (bytes <= MAX_STORED) {
    // One block (an answer's meta): the text encoded straight after its header, the plain form a view of it.
    const deflated = Buffer.allocUnsafe(5 + bytes);
    deflated[0] = 0;
    deflated.writeUInt16LE(bytes, 1);
    deflated.writeUInt16LE(~bytes & 0xffff, 3);
    deflated.write(text, 5);
    return made(deflated.subarray(5), deflated);
  }
  const raw = Buffer.from(text);
  const blocks = Math.max(1, Math.ceil(raw.length / MAX_STORED));
  const deflated = Buffer.allocUnsafe(raw.length + 5 * blocks);
  let out = 0;
  for (let at = 0; at === 0 || at < raw.length; at += MAX_STORED) {
    const length = Math.min(MAX_STORED, raw.length - at);
    // BFINAL 0, BTYPE 00 (stored), padded to the byte; then LEN and its one's complement, little-endian.
    deflated[out] = 0;
    deflated.writeUInt16LE(length, out + 1);
    deflated.writeUInt16LE(~length & 0xffff, out + 3);
    raw.copy(deflated, out + 5, at, at + length);
    out += 5 + length;
  }
  return made(raw, deflated);
}

/** gzip header: deflate, no flags, no time, OS unknown. */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** An empty final block (fixed Huffman codes, end of block only): what Z_FINISH writes after a flush. */
const FINAL_BLOCK = Buffer.from([0x03, 0x00]);

/** An answer's pieces in order: its plain bytes and its gzip form, each made when first asked. */
export class Pieces {
  /** Bytes of the plain form. */
  readonly length: number;
  constructor(readonly pieces: readonly Piece[]) {
    this.length = pieces.reduce((n, p) => n + p.length, 0);
  }

  raw(): Buffer {
    return Buffer.concat(this.pieces.map((p) => p.raw));
  }

  gzip(): Buffer {
    let crc = 0;
    for (const p of this.pieces) crc = multmodp(p.shift, crc) ^ p.crc;
    const trailer = Buffer.alloc(8);
    trailer.writeUInt32LE(crc >>> 0, 0);
    trailer.writeUInt32LE(this.length % 2 ** 32, 4);
    return Buffer.concat([GZIP_HEADER, ...this.pieces.map((p) => p.deflated), FINAL_BLOCK, trailer]);
  }
}

/** Most elements in one span of a chain: a 30-day range is then at most 9 spans. */
export const MAX_SPAN = 32;

/**
 * The spans covering elements lo..hi-1 (lo < hi), as [start, size] pairs: from lo, each the largest run of
 * 2^k elements (k ≤ 5) aligned on a multiple of its size that ends by hi. Any range is at most about
 * 2 × log2 of its length of them, and one span serves every range that covers it whole.
 */
export function spans(lo: number, hi: number): [number, number][] {
  const out: [number, number][] = [];
  for (let at = lo; at < hi; ) {
    let size = 1;
    while (size < MAX_SPAN && at % (size * 2) === 0 && at + size * 2 <= hi) size *= 2;
    out.push([at, size]);
    at += size;
  }
  return out;
}

const COMMA_BYTE = Buffer.from(',');

/** A span of a chain: its deflate form kept, its JSON joined from the chain's elements when asked. */
class Span implements Piece {
  readonly length: number;
  readonly deflated: Buffer;
  readonly crc: number;
  readonly shift: number;
  constructor(
    private readonly parts: readonly Buffer[],
    compressed: Piece,
  ) {
    ({ length: this.length, deflated: this.deflated, crc: this.crc, shift: this.shift } = compressed);
  }

  get raw(): Buffer {
    return Buffer.concat(this.parts as Buffer[], this.length);
  }
}

/**
 * A sequence of JSON elements an answer takes a run of, joined by commas (an organization's days, a user's
 * day rows), kept as spans (spans()): a run is a few pieces, each compressed in one go (about as small as
 * the whole answer compressed) rather than one piece an element. The first span of a run is compressed
 * alone; every other one begins with its comma and has the element before it, the end of the span before,
 * as dictionary. Elements are numbered by the caller (a day's number, a row's index) and never change.
 */
export class Chain {
  private readonly kept = new Map<number, Piece>();

  /**
   * Appends to `out` the pieces of elements lo..hi-1, after a comma when `comma` (the run follows another
   * in the answer); `element(i)` gives element i's JSON (i from lo to hi-1).
   */
  push(lo: number, hi: number, element: (i: number) => Buffer, out: Piece[], comma = false): void {
    for (const [at, size] of spans(lo, hi)) {
      // The form: 0 after the element before it, 1 first of the run, 2 first after a comma.
      const form = at > lo ? 0 : comma ? 2 : 1;
      // size < 64: the key is unique per start, size and form.
      const key = (at * 64 + size) * 3 + form;
      let span = this.kept.get(key);
      if (!span) this.kept.set(key, (span = this.span(at, size, form, element)));
      out.push(span);
    }
  }

  private span(at: number, size: number, form: number, element: (i: number) => Buffer): Piece {
    const first = form !== 0;
    const parts: Buffer[] = [];
    for (let i = at; i < at + size; i++) {
      if (i > at || form !== 1) parts.push(COMMA_BYTE);
      parts.push(element(i));
    }
    // The joined bytes are compressed, then let go: the span keeps its parts, which the chain's elements hold already.
    return new Span(parts, piece(Buffer.concat(parts), first ? undefined : element(at - 1)));
  }
}
