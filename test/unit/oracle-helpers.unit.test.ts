// The oracle tests' pure helpers (test/helpers/oracle.ts): files as they grew, and timestamps moved by
// whole days, on hand-made inputs.
import { describe, expect, it } from 'vitest';
import { grownText, shiftTimestamps } from '../helpers/oracle.ts';

describe('grownText', () => {
  const jsonl = 'a\nb\nc\nd\ne\n';
  it('gives a JSONL file by whole lines: a third, two thirds, all', () => {
    expect(grownText(jsonl, 1, 3)).toBe('a\nb\n');
    expect(grownText(jsonl, 2, 3)).toBe('a\nb\nc\nd\n');
    expect(grownText(jsonl, 3, 3)).toBe(jsonl);
  });
  it('gives a whole-file JSON chat with its first messages, the rest of it kept', () => {
    const chat = JSON.stringify({ sessionId: 's', messages: [1, 2, 3, 4] }, null, 2);
    expect(JSON.parse(grownText(chat, 1, 3))).toEqual({ sessionId: 's', messages: [1, 2] });
    expect(JSON.parse(grownText(chat, 2, 3))).toEqual({ sessionId: 's', messages: [1, 2, 3] });
    expect(grownText(chat, 3, 3)).toBe(chat);
  });
});

describe('shiftTimestamps', () => {
  it('moves every UTC timestamp by whole days, across a month end, keeping its precision', () => {
    const text = '{"timestamp":"2025-08-28T12:57:13.873Z","t":"2025-08-31T23:59:59Z","x":"2025-08-28"}';
    expect(shiftTimestamps(text, 210)).toBe('{"timestamp":"2026-03-26T12:57:13.873Z","t":"2026-03-29T23:59:59Z","x":"2025-08-28"}');
  });
  it('leaves the text alone for zero days', () => {
    expect(shiftTimestamps('"2025-01-01T00:00:00Z"', 0)).toBe('"2025-01-01T00:00:00Z"');
  });
});
