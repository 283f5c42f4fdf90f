import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compileAccepts, compileJudge } from '../../api/ingest/accepts.ts';
import { stringCount } from '../../api/ingest/decode.ts';
import { WireRecord } from '../../common/wire.ts';

// compileAccepts must say yes exactly when zod's safeParse succeeds, and then safeParse must return the value
// it was given (the decoder stores the item itself). Checked on valid records of every kind and on
// thousands of variations of them: each key removed, replaced by values of every type and of edge sizes,
// keys added, nested lists and objects broken.

const T = Date.UTC(2026, 2, 1);
const REPO_ID = 'repo_0123456789abcdef';
const SHA = 'a'.repeat(40);
const VALID: Record<string, unknown>[] = [
  { kind: 'event', id: 'e1', agent: 'claude', event: 'Stop', ts: T, session_id: 's', client: 'terminal-ui', autonomy: 'manual' },
  {
    kind: 'event',
    id: 'e2',
    agent: 'droid',
    event: 'PostToolUse',
    ts: T,
    session_id: 's',
    client: 'web',
    autonomy: 'auto-high',
    tool_name: 'Edit',
    tool_success: true,
    mcp_server: 'github',
    skill: 'pdf',
    is_shell: false,
    files: [
      { ext: 'ts', op: 'edit' },
      { ext: '', name: 'Makefile', op: 'create' },
    ],
    edits: [
      { ext: 'ts', lines_added: 3, lines_deleted: 1, repo_id: REPO_ID, repo: 'github.com/acme/app' },
      { ext: 'md', lines_added: 0, lines_deleted: 0 },
    ],
    git_commit: true,
    pr_created: false,
    slash_command: 'review',
    reason: 'done',
    agent_id: 'a',
    agent_type: 'sub',
    truncated: false,
    hooks: [{ event: 'PostToolUse', matcher: '*', command: "'/home/dev/.agentmeter/bin/agentmeter-hook.sh' claude" }],
    repo_id: REPO_ID,
    repo: 'github.com/acme/app',
    api_session_id: 'ses_1',
    api_message_id: 'msg_1',
  },
  {
    kind: 'usage',
    id: 'u1',
    agent: 'claude',
    session_id: 's',
    ts: T,
    model: 'claude-sonnet-4-5',
    input_tokens: 10,
    output_tokens: 20,
    cache_read_tokens: 0,
    cache_write_tokens: 5,
    cache_write_1h_tokens: 5,
    thinking_tokens: 0,
    thinking: true,
    source: 'otel',
  },
  { kind: 'message', id: 'm1', agent: 'codex', session_id: 's', ts: T, model: 'gpt-5.5' },
  {
    kind: 'commit',
    id: `${REPO_ID}:${SHA}`,
    repo_id: REPO_ID,
    repo: 'github.com/acme/app',
    commit: SHA,
    ts: T,
    author: 'dev@example.com',
    lines_added: 10,
    lines_deleted: 2,
    agent_lines: 7,
    by_agent: [
      { agent: 'claude', model: 'claude-sonnet-4-5', lines: 5 },
      { agent: 'codex', model: 'gpt-5.5', lines: 2 },
    ],
    parents: ['b'.repeat(40)],
    by_session: [{ agent: 'claude', session_id: 's', lines: 7 }],
  },
  {
    kind: 'decision',
    id: 'd1',
    agent: 'claude',
    session_id: 's',
    ts: T,
    decision: 'accept',
    count: 3,
    tool_name: 'Edit',
    language: 'TypeScript',
  },
];

/** Values of every JSON type and of the sizes the schemas draw lines at. */
const REPLACEMENTS: unknown[] = [
  null,
  undefined,
  true,
  false,
  0,
  1,
  -1,
  1.5,
  T,
  946_684_799_999,
  4_102_444_800_001,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  10_000_000_000,
  10_000_000_001,
  100_000_000,
  100_000_001,
  1_000_000,
  1_000_001,
  '',
  'x',
  'claude',
  'terminal-ui',
  'manual',
  'edit',
  'accept',
  'otel',
  'event',
  'usage',
  'x'.repeat(64),
  'x'.repeat(65),
  'x'.repeat(128),
  'x'.repeat(129),
  'x'.repeat(256),
  'x'.repeat(257),
  'x'.repeat(512),
  'x'.repeat(513),
  'x'.repeat(1024),
  'x'.repeat(1025),
  '😀'.repeat(256),
  '😀'.repeat(257),
  'bad\udfffstring',
  'local:repo_0123456789abcdef',
  'github.com/acme/app',
  '/home/dev/app',
  REPO_ID,
  'repo_XYZ',
  SHA,
  'dev@example.com',
  'not an address',
  'ses_1',
  'bad id!',
  [],
  [{}],
  [{ ext: 'ts', op: 'edit' }],
  [{ ext: 'ts', op: 'move' }],
  [{ ext: 'ts', lines_added: 1, lines_deleted: 0, repo_id: REPO_ID }],
  [{ event: 'Stop', matcher: '*', command: 'x', extra: 1 }],
  Array.from({ length: 257 }, () => ({ ext: 'ts', op: 'edit' })),
  Array.from({ length: 201 }, () => ({ event: 'Stop', matcher: '*', command: 'x' })),
  [SHA, 'c'.repeat(64)],
  Array.from({ length: 17 }, () => SHA),
  {},
  { kind: 'event' },
];

/** Every record above with one change: a key removed, replaced, or one added; nested values broken too. */
function* variations(record: Record<string, unknown>): Generator<unknown> {
  yield record;
  for (const key of Object.keys(record)) {
    const { [key]: _, ...without } = record;
    yield without;
    for (const value of REPLACEMENTS) yield { ...record, [key]: value };
    const nested = record[key];
    if (Array.isArray(nested) && nested.length && typeof nested[0] === 'object') {
      const item = nested[0] as Record<string, unknown>;
      for (const inner of Object.keys(item)) {
        const { [inner]: __, ...itemWithout } = item;
        yield { ...record, [key]: [itemWithout, ...nested.slice(1)] };
        for (const value of REPLACEMENTS) yield { ...record, [key]: [{ ...item, [inner]: value }, ...nested.slice(1)] };
      }
      yield { ...record, [key]: [{ ...item, extra: 1 }] };
    }
  }
  yield { ...record, prompt: 'leak' };
  yield JSON.parse(`{"__proto__": 1, ${JSON.stringify(record).slice(1)}`);
  // Keys that name what every object inherits: the shape's lookup must find none of them.
  for (const key of ['constructor', 'toString', 'hasOwnProperty', 'valueOf'])
    yield JSON.parse(`{"${key}": 1, ${JSON.stringify(record).slice(1)}`);
  yield [record];
  yield null;
  yield 'record';
}

describe('compileAccepts', () => {
  const accepts = compileAccepts(WireRecord);

  it('compiles the wire record schema', () => {
    expect(accepts).toBeDefined();
  });

  it('says yes exactly when safeParse succeeds, and safeParse then returns the value as given', () => {
    let yes = 0;
    let no = 0;
    for (const record of VALID)
      for (const value of variations(record)) {
        const parsed = WireRecord.safeParse(value);
        expect(accepts!(value), JSON.stringify(value)?.slice(0, 300)).toBe(parsed.success);
        if (parsed.success) {
          yes++;
          expect(parsed.data).toEqual(value);
        } else no++;
      }
    // Both answers are well represented (the corpus is not one-sided).
    expect(yes).toBeGreaterThan(200);
    expect(no).toBeGreaterThan(2000);
  });

  it('judges with the schema’s own checks, refinements included', () => {
    const commit = VALID.find((r) => r['kind'] === 'commit')!;
    expect(accepts!({ ...commit, agent_lines: 8 })).toBe(false);
    expect(accepts!({ ...commit, id: `${REPO_ID}:${'c'.repeat(40)}` })).toBe(false);
    const edit = { ext: 'ts', lines_added: 1, lines_deleted: 0, repo: 'github.com/acme/app' };
    expect(accepts!({ ...VALID[1], edits: [edit] })).toBe(false);
  });

  it('counts the strings of an accepted record, keys included, as stringCount does', () => {
    const judge = compileJudge(WireRecord)!;
    let counted = 0;
    for (const record of VALID)
      for (const value of variations(record)) {
        const strings = judge(value);
        expect(strings >= 0).toBe(WireRecord.safeParse(value).success);
        if (strings >= 0) {
          expect(strings, JSON.stringify(value)?.slice(0, 300)).toBe(stringCount(value));
          counted++;
        }
      }
    expect(counted).toBeGreaterThan(200);
  });

  it('says what zod says on both sides of every check it shortcuts', () => {
    // Lengths count code points in zod; the shortcuts count UTF-16 units, so an emoji (two units) sits on
    // both sides of each bound. A /g regex keeps lastIndex between calls; a refinement may answer a truthy
    // non-boolean; an integer may be unsafe; a number bound may be exclusive.
    const schema = z.strictObject({
      s: z
        .string()
        .min(2)
        .max(4)
        .refine((v) => (v.startsWith('!') ? 0 : v.length))
        .optional(),
      r: z.string().regex(/ab/g).optional(),
      n: z.number().int().gt(-3).lt(3).optional(),
      m: z.number().min(-1.5).max(1.5).multipleOf(0.5).optional(),
      a: z.array(z.string()).min(1).max(2).optional(),
      x: z.string().length(2).optional(),
    });
    const judge = compileJudge(schema)!;
    const values: Record<string, unknown[]> = {
      s: ['', 'a', '😀', 'ab', 'a😀', '😀😀', 'abcd', 'abcde', '😀😀😀😀', '😀😀😀😀😀', 'ab😀', '!abc', 'a\udfff'],
      r: ['ab', 'xab', 'ab', 'a', 'abab', ''],
      n: [-3, -2, 0, 2, 3, 1.5, 2 ** 53, -(2 ** 53), Number.MAX_SAFE_INTEGER],
      m: [-2, -1.5, -1, 0.25, 1.5, 2],
      a: [[], ['a'], ['a', 'b'], ['a', 'b', 'c'], [1]],
      x: ['', 'a', 'ab', '😀', '😀😀', 'abc'],
    };
    let checked = 0;
    for (const [key, list] of Object.entries(values))
      for (const value of list) {
        const parsed = schema.safeParse({ [key]: value });
        expect(judge({ [key]: value }) >= 0, `${key}: ${JSON.stringify(value)}`).toBe(parsed.success);
        checked++;
      }
    expect(checked).toBeGreaterThan(40);
  });

  it('refuses to compile a schema whose output can differ from its input', () => {
    expect(compileAccepts(z.object({ a: z.string() }))).toBeUndefined();
    expect(compileAccepts(z.looseObject({ a: z.string() }))).toBeUndefined();
    expect(compileAccepts(z.strictObject({ a: z.string().trim() }))).toBeUndefined();
    expect(compileAccepts(z.strictObject({ a: z.string().default('x') }))).toBeUndefined();
    expect(compileAccepts(z.strictObject({ a: z.coerce.number() }))).toBeUndefined();
    expect(compileAccepts(z.strictObject({ a: z.string().transform((s) => s.length) }))).toBeUndefined();
    expect(compileAccepts(z.union([z.string(), z.number()]))).toBeUndefined();
    expect(compileAccepts(z.strictObject({ a: z.string(), b: z.array(z.number().int().max(3)).max(2).optional() }))).toBeDefined();
  });
});
