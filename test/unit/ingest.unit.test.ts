import { createServer, type Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  AsciiBody,
  bytesSayExactly,
  decodeBody,
  decodeItems,
  decodeNdjson,
  inflateChunk,
  lineSaysExactly,
  quotesInWord,
  stringCount,
  TooManyRecords,
} from '../../api/ingest/decode.ts';
import { postBatch, ShipError } from '../../collector/shipper.ts';
import { backoffDelay } from '../../common/backoff.ts';
import { redactCommand } from '../../common/redact.ts';
import { isWellFormed, type WireRecord } from '../../common/wire.ts';

const T = Date.UTC(2026, 2, 1);
const event = (id: string, extra: Record<string, unknown> = {}) => ({
  kind: 'event',
  id,
  agent: 'claude',
  event: 'Stop',
  ts: T,
  session_id: 's',
  client: 'terminal-ui',
  autonomy: 'manual',
  ...extra,
});
const usage = (id: string, output: number, thinking = false): WireRecord => ({
  kind: 'usage',
  id,
  agent: 'claude',
  session_id: 's',
  ts: T,
  model: 'm',
  input_tokens: 1,
  output_tokens: output,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  thinking_tokens: 0,
  thinking,
});

/** The events a decoded batch stores, as text (they are bytes: the store writes them as they are). */
const textOf = (batch: { events: { ndjson: Uint8Array } }) => Buffer.from(batch.events.ndjson).toString();
const rowsOf = (ndjson: string) =>
  ndjson
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { id: string; ts: number });

describe('ingest decoding', () => {
  it('keeps good records and rejects bad ones with index, id and reason', async () => {
    const batch = await decodeItems(
      [event('a'), event('b', { client: 'desktop' }), { kind: 'nope' }, event('c', { ts: 5 }), event('d', { prompt: 'leak' })],
      100,
    );
    expect(rowsOf(textOf(batch)).map((r) => r.id)).toEqual(['a']);
    expect(batch.rejected.map((r) => [r.index, r.id])).toEqual([
      [1, 'b'],
      [2, undefined],
      [3, 'c'],
      [4, 'd'],
    ]);
    expect(batch.rejected[0]!.reason).toContain('client');
    expect(batch.rejected[3]!.reason).toContain('prompt');
    expect(batch.received).toBe(5);
  });
  it('turns a line that is not JSON into a rejection, not a failed batch; empty lines are not records', async () => {
    const batch = await decodeNdjson(`${JSON.stringify(event('a'))}\n{oops\n\n${JSON.stringify(event('b'))}\n`, 100);
    expect(batch.events.count).toBe(2);
    expect(batch.rejected).toHaveLength(1);
    expect(batch.rejected[0]!.index).toBe(1);
    expect(batch.rejected[0]!.reason).toMatch(/^not JSON .*: {oops$/);
    expect(batch.received).toBe(3);
  });
  it('rejects a record with a lone UTF-16 surrogate anywhere, keeps a well-formed pair, and never writes one out', async () => {
    expect(isWellFormed('a\ud83d\ude00')).toBe(true);
    expect(isWellFormed('a\udfff')).toBe(false);
    expect(isWellFormed('\ud800b')).toBe(false);
    expect(isWellFormed('\ude00\ud83d')).toBe(false);
    const lines = [
      '{"kind":"event","id":"a","agent":"claude","event":"PreToolUse","ts":T,"session_id":"s","client":"web","autonomy":"manual","tool_name":"Bash\\udfff"}',
      '{"kind":"event","id":"b","agent":"claude","event":"Stop","ts":T,"session_id":"s","client":"web","autonomy":"manual","hooks":[{"event":"Stop","matcher":"","command":"\\ud800"}]}',
      '{"kind":"message","id":"c\\udbff","agent":"claude","session_id":"s","ts":T}',
      '{"kind":"event","id":"d","agent":"claude","event":"PreToolUse","ts":T,"session_id":"s","client":"web","autonomy":"manual","tool_name":"\\ud83d\\ude00"}',
    ].map((line) => line.replace(/:T([,}])/, `:${T}$1`));
    const batch = await decodeNdjson(lines.join('\n'), 10);
    expect(batch.rejected.map((r) => [r.index, r.reason])).toEqual([
      [0, expect.stringMatching(/^tool_name: not well-formed Unicode/)],
      [1, expect.stringMatching(/^hooks\.0\.command: not well-formed Unicode/)],
      [2, expect.stringMatching(/^id: not well-formed Unicode/)],
    ]);
    expect(rowsOf(textOf(batch))).toMatchObject([{ id: 'd', tool_name: '😀' }]);
    expect(textOf(batch)).not.toMatch(/\\ud[89a-f]/i);
  });
  it('serializes what zod validated, not what was sent: duplicate keys resolve as JSON.parse does', async () => {
    const line = `{"kind":"event","id":"x","agent":"claude","event":"Stop","ts":${T},"session_id":"s","client":"web","client":"terminal-ui","autonomy":"manual"}`;
    const batch = await decodeNdjson(line, 100);
    expect(textOf(batch)).not.toContain('"web"');
    expect(rowsOf(textOf(batch))[0]).toMatchObject({ id: 'x', client: 'terminal-ui' });
  });
  it('masks hook commands an older collector sent in clear, and keeps already masked lines as sent', async () => {
    const clear = event('c', {
      hooks: [{ event: 'Stop', matcher: '', command: 'curl -H "Authorization: Bearer abc123secret" https://x' }],
    });
    const done = event('d', { hooks: [{ event: 'Stop', matcher: '', command: 'curl -H "Authorization: Bearer ***" https://x' }] });
    const text = `${JSON.stringify(clear)}\n${JSON.stringify(done)}\n`;
    for (const batch of [await decodeNdjson(text, 100), await decodeItems([clear, done], 100)]) {
      expect(textOf(batch)).not.toContain('abc123secret');
      const rows = rowsOf(textOf(batch)) as unknown as { hooks: { command: string }[] }[];
      const masked = 'curl -H "Authorization: Bearer ***" https://x';
      expect(rows.map((r) => r.hooks[0]!.command)).toEqual([masked, masked]);
    }
    // The masked line is cut from the request text as it is (its spacing kept), not written again.
    const quoteless = event('q', { hooks: [{ event: 'Stop', matcher: '', command: '~/bin/notify --token ***' }] });
    const spaced = JSON.stringify(quoteless).replace('"id":', '"id" :');
    expect(textOf(await decodeNdjson(spaced, 100))).toBe(`${spaced}\n`);
    // Commands in turn, each masked as itself: a repeat of the one before is not taken for another.
    const commands = ['a --token sekret1', 'b', 'b', 'a --token sekret1', 'x --token sekret2', 'c --password hunter2', 'c'];
    const turns = commands.map((command, i) => JSON.stringify(event(`t${i}`, { hooks: [{ event: 'Stop', matcher: '', command }] })));
    const rows = rowsOf(textOf(await decodeNdjson(turns.join('\n'), 100))) as unknown as { hooks: { command: string }[] }[];
    expect(rows.map((r) => r.hooks[0]!.command)).toEqual(commands.map((command) => redactCommand(command)));
    expect(new Set(rows.map((r) => r.hooks[0]!.command)).size).toBe(5);
    expect(textOf(await decodeNdjson(turns.join('\n'), 100))).not.toMatch(/sekret|hunter2/);
  });
  it('stores a line as sent only when it says exactly what was validated', async () => {
    const plain = JSON.stringify(
      event('p', { hooks: [{ event: 'Stop', matcher: '', command: 'run: it' }], files: [{ ext: 'ts', op: 'edit' }] }),
    );
    const parsed = JSON.parse(plain) as object;
    // The check on the string and the one on an ASCII body's bytes (bytesSayExactly) agree on every line.
    const says = (line: string, value: object) => {
      const verdict = lineSaysExactly(line, value);
      const strings = stringCount(value);
      const padded = Buffer.from(`xx\n${line}\nyy`, 'latin1');
      expect(bytesSayExactly(padded, 3, 3 + line.length, strings)).toBe(verdict);
      // AsciiBody, at every alignment of the line, in a body with and without a backslash elsewhere.
      for (const other of ['yy', 'C:\\yy'])
        for (let pad = 0; pad < 4; pad++) {
          const body = Buffer.from(`${'x'.repeat(pad)}\n${line}\n${other}`, 'latin1');
          expect(new AsciiBody(body).saysExactly(pad + 1, pad + 1 + line.length, strings)).toBe(verdict);
        }
      return verdict;
    };
    expect(says(plain, parsed)).toBe(true);
    // Whitespace between tokens says nothing more; a key given twice does, however it is spaced.
    expect(says(plain.replace('"id":', '"id" :'), parsed)).toBe(true);
    expect(says(plain.replace('"id":"p"', '"id" :\t"p"'), parsed)).toBe(true);
    expect(says(plain.replace('"id":"p"', '"id":"p","id":"p"'), parsed)).toBe(false);
    expect(says(plain.replace('"id":"p"', '"id":1,"id":"p"'), parsed)).toBe(false);
    expect(says(plain.replace('"op":"edit"', '"op":"edit","op" : "edit"'), parsed)).toBe(false);
    expect(says(plain.replace('"id":"p"', '"id" :"q","id":"p"'), parsed)).toBe(false);
    expect(says(plain.replace('"id":"p"', '"id":"q","id":"p"'), parsed)).toBe(false);
    expect(says(plain.replace('"op":"edit"', '"op":"create","op":"edit"'), parsed)).toBe(false);
    expect(says(plain.replace('run: it', 'run\\" it'), parsed)).toBe(false);
    expect(says(plain.replace('"id":"p"', '"id"\t:"q","id":"p"'), parsed)).toBe(false);
    expect(says(`${plain}\r`, parsed)).toBe(false);
    const sent = `${plain.slice(0, -1)} }`;
    const batch = await decodeNdjson(`${sent}\n${JSON.stringify(event('q', { tool_name: 'C:\\bin' }))}`, 10);
    expect(textOf(batch).split('\n')[0]).toBe(sent);
    expect(rowsOf(textOf(batch))[1]).toMatchObject({ id: 'q', tool_name: 'C:\\bin' });
  });
  it('counts quotes four bytes at a time as one at a time does, at every alignment and length', () => {
    // Bytes next to a quote's in value or in bits (0xa2 is a quote with its high bit set) must not count.
    const alphabet = [0x22, 0x22, 0xa2, 0x23, 0x21, 0x02, 0x00, 0x7f, 0xff, 0x5c, 0x0d, 0x61];
    let state = 7;
    const random = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state >>> 8;
    };
    const memory = Buffer.from(Array.from({ length: 4096 }, () => alphabet[random() % alphabet.length]!));
    const naive = (bytes: Uint8Array, start: number, end: number) => bytes.subarray(start, end).filter((b) => b === 0x22).length;
    for (let offset = 0; offset < 4; offset++) {
      const bytes = memory.subarray(offset, 2048 + offset);
      const body = new AsciiBody(bytes);
      for (let trial = 0; trial < 400; trial++) {
        const start = random() % bytes.length;
        const end = start + (random() % Math.min(90, bytes.length - start + 1));
        expect(body.quotes(start, end), `offset ${offset} [${start}, ${end})`).toBe(naive(bytes, start, end));
      }
      expect(body.quotes(0, bytes.length)).toBe(naive(bytes, 0, bytes.length));
    }
    // Bodies of every length up to twelve bytes at every offset, as small ones sit in Node's pool.
    const small = Buffer.from('"a"b""c"d"e"f""g"h');
    for (let offset = 0; offset < small.length; offset++)
      for (let length = 0; offset + length <= small.length && length <= 12; length++) {
        const bytes = small.subarray(offset, offset + length);
        expect(new AsciiBody(bytes).quotes(0, length), `${offset}+${length}`).toBe(naive(bytes, 0, length));
      }
    // Hand-worked words: "a"b" holds two quotes whichever byte order a word is read in.
    expect(quotesInWord(0x22612262)).toBe(2);
    expect(quotesInWord(0x22222222)).toBe(4);
    expect(quotesInWord(0xa2a2a2a2 | 0)).toBe(0);
    expect(quotesInWord(0)).toBe(0);
  });
  it('inflates a body into one chunk its gzip trailer states, and any body whatever its trailer says', async () => {
    const trailer = (size: number) => Buffer.from([0x1f, 0x8b, 0, 0, size & 0xff, (size >>> 8) & 0xff, (size >>> 16) & 0xff, size >>> 24]);
    expect(inflateChunk(trailer(3_000_000))).toBe(3_000_001);
    // Too small to matter, past the one-chunk bound, or no trailer at all: 1 MiB chunks as before.
    expect(inflateChunk(trailer(200_000))).toBe(1 << 20);
    expect(inflateChunk(trailer(40_000_000))).toBe(1 << 20);
    expect(inflateChunk(Buffer.from([1, 2]))).toBe(1 << 20);
    // Two gzip members: the trailer states only the last one's size; every record of both is decoded.
    const lines = (from: number, n: number) =>
      Array.from({ length: n }, (_, i) => `${JSON.stringify(event(`m${from + i}`, { tool_name: 'x'.repeat(200) }))}\n`).join('');
    const first = lines(0, 6000);
    const last = lines(6000, 4000);
    expect(inflateChunk(gzipSync(last))).toBe(last.length + 1);
    const answer = await decodeBody(Buffer.concat([gzipSync(first), gzipSync(last)]), true, 'ndjson', {
      maxRecords: 10_000,
      maxInflatedBytes: 1 << 24,
    });
    if (answer.failure !== undefined) throw new Error(answer.message);
    expect(answer.batch.events.count).toBe(10_000);
    expect(Buffer.from(answer.batch.events.ndjson).toString()).toBe(first + last);
  });
  it('keeps or writes again the same lines whether an ASCII body is judged by its bytes or its text', async () => {
    const plain = JSON.stringify(event('p', { hooks: [{ event: 'Stop', matcher: '', command: 'run: it' }] }));
    const lines = [
      plain,
      plain.replace('"id":"p"', '"id":"x","id":"p2"'),
      plain.replace('"id":"p"', '"id" : "p3"'),
      JSON.stringify(event('q', { tool_name: 'C:\\bin' })),
      `${JSON.stringify(event('r'))}\r`,
    ];
    const text = lines.join('\n');
    const limits = { maxRecords: 100, maxInflatedBytes: 1 << 20 };
    const decoded = async (body: string) => {
      const answer = await decodeBody(Buffer.from(body), false, 'ndjson', limits);
      if (answer.failure) throw new Error(answer.message);
      return answer.batch;
    };
    const fromText = await decodeNdjson(text, 100);
    expect(textOf(await decoded(text))).toBe(textOf(fromText));
    const stored = textOf(fromText).split('\n');
    // Kept as sent: the plain line and the spaced one; the key given twice is written from the value JSON.parse kept.
    expect(stored[0]).toBe(plain);
    expect(JSON.parse(stored[1]!)).toMatchObject({ id: 'p2' });
    expect(stored[1]).not.toContain('"x"');
    expect(stored[2]).toBe(lines[2]);
    expect(rowsOf(textOf(fromText)).map((r) => r.id)).toEqual(['p', 'p2', 'p3', 'q', 'r']);
    // A body that is not ASCII is judged on its text, with the same verdicts.
    const unicode = `${text}\n${JSON.stringify(event('ü', { tool_name: '😀' }))}`;
    const fromUnicode = textOf(await decoded(unicode));
    expect(fromUnicode).toBe(textOf(await decodeNdjson(unicode, 100)));
    expect(fromUnicode.split('\n')[5]).toBe(JSON.stringify(event('ü', { tool_name: '😀' })));
  });
  it('cuts runs of lines kept as sent from the text, and breaks them where a line is dropped or written again', async () => {
    const message = (id: string) => ({ kind: 'message', id, agent: 'claude', session_id: 's', ts: T });
    const lines = [event('a'), event('b'), message('m'), event('c'), event('b'), event('d', { tool_name: 'C:\\x' }), event('e')].map((r) =>
      JSON.stringify(r),
    );
    lines.splice(4, 0, '', '{bad');
    for (const text of [lines.join('\n'), `${lines.join('\n')}\n`, lines.join('\r\n')]) {
      const batch = await decodeNdjson(text, 100);
      expect(rowsOf(textOf(batch)).map((r) => r.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
      expect(textOf(batch).endsWith('}\n')).toBe(true);
      expect(textOf(batch).split('\n')).toHaveLength(6);
      expect(rowsOf(batch.messages.ndjson).map((r) => r.id)).toEqual(['m']);
      expect(batch.messages.ndjson.split('\n')).toHaveLength(2);
      expect(batch.rejected).toEqual([expect.objectContaining({ index: 4 })]); // the empty line is not a record
    }
  });
  it('dedupes a batch: first event and message win, usage keeps the largest output and any thinking', async () => {
    const batch = await decodeItems(
      [
        event('a'),
        event('a', { event: 'Later' }),
        usage('u', 5, true),
        usage('u', 50),
        usage('u', 20),
        { kind: 'message', id: 'm', agent: 'claude', session_id: 's', ts: T },
        { kind: 'message', id: 'm', agent: 'claude', session_id: 's', ts: T + 1 },
      ],
      100,
    );
    expect(rowsOf(textOf(batch))).toEqual([expect.objectContaining({ id: 'a', event: 'Stop' })]);
    expect(batch.usage).toEqual([{ ...usage('u', 50), thinking: true }]);
    expect(rowsOf(batch.messages.ndjson)).toEqual([expect.objectContaining({ id: 'm', ts: T })]);
    expect(batch.inBatchDuplicates).toBe(4);
  });
  it("a continued session's copy of a call: the earliest copy's time and session, the largest of each count", async () => {
    // The copy (session b, a later time) arrives before the original (session a) in the same batch.
    const copy = { ...usage('cc:msg_1:req_1', 70), session_id: 'b', ts: T + 86_400_000, cache_read_tokens: 9 };
    const original = { ...usage('cc:msg_1:req_1', 60, true), session_id: 'a', input_tokens: 3 };
    const message = (session_id: string, ts: number) => ({ kind: 'message', id: 'cc:msg_1:req_1', agent: 'claude', session_id, ts });
    const batch = await decodeItems([copy, original, message('b', T + 86_400_000), message('a', T), message('c', T)], 100);
    expect(batch.usage).toEqual([
      { ...original, input_tokens: 3, output_tokens: 70, cache_read_tokens: 9, thinking: true, session_id: 'a', ts: T },
    ]);
    expect(rowsOf(batch.messages.ndjson)).toEqual([message('a', T)]);
    expect(batch.inBatchDuplicates).toBe(3);
  });
  it('stops at the record limit', async () => {
    await expect(decodeNdjson([event('a'), event('b'), event('c')].map((e) => JSON.stringify(e)).join('\n'), 2)).rejects.toBeInstanceOf(
      TooManyRecords,
    );
    await expect(decodeItems([event('a'), event('b')], 2)).resolves.toMatchObject({ received: 2 });
  });
});

describe('backoff', () => {
  it('grows exponentially with full jitter up to the cap', () => {
    expect(backoffDelay(0, { baseMs: 500, maxMs: 30_000 }, () => 1)).toBe(500);
    expect(backoffDelay(3, { baseMs: 500, maxMs: 30_000 }, () => 1)).toBe(4000);
    expect(backoffDelay(20, { baseMs: 500, maxMs: 30_000 }, () => 1)).toBe(30_000);
    expect(backoffDelay(5, { baseMs: 500, maxMs: 30_000 }, () => 0)).toBe(0);
  });

  it('a server that accepts the connection and never answers fails the attempt (retryable) instead of stalling it', async () => {
    // The request's deadline fires once the server has the connection: an event, not a guess at how long
    // connecting takes on a loaded machine (a 300 ms deadline once fired before the socket was accepted).
    const deadline = new AbortController();
    const sockets: Socket[] = [];
    const silent = createServer((socket) => {
      sockets.push(socket);
      deadline.abort(new DOMException('request deadline', 'TimeoutError'));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const stopping = new AbortController(); // the collector's own signal, never fired here
      const error = await postBatch(`http://127.0.0.1:${port}`, 'am_x', Buffer.from(''), stopping.signal, deadline.signal).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ShipError);
      expect((error as ShipError).retryable).toBe(true);
      expect(sockets.length).toBe(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
