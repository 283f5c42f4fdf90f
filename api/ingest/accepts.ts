// Whether zod accepts a record, without zod building the copy of it that safeParse returns.
//
// Validating a wire record with safeParse was the largest part of decoding an ingest batch (~3 µs of an
// event's ~8 µs on a decode worker): a strict object's parse makes a payload and an issues array for each
// of the ~30 keys of its shape (present or not), a new object for the result, and an array for each list.
// For a schema that cannot change a value (strict objects, optional, arrays, a discriminated union, and
// strings, numbers, booleans, enums and literals with checks that only judge), the value it returns is
// the value it was given, so only its yes or no is needed. `accepts` gives that yes or no from zod
// itself: every leaf value (and every check of an array or object) is judged by the schema's own
// `_zod.check`; only the walk over objects, arrays and the union and the leaves' type tests are done
// here. A schema with anything else (a transform, a default, a coercion, a non-strict object, which
// strips keys) is not compiled: `compileAccepts` returns undefined and the caller uses safeParse. A
// record refused here is parsed again with safeParse for zod's own reason.
//
// The checks the wire schemas use (a string's length bounds, a refinement, a regex, a number's bounds
// and integer format) are first tried by a shortcut of an operation or two that says yes only where
// zod's check surely does (a string of at most `max` UTF-16 units has at most `max` code points); every
// other answer, each no included, is the check's own. Calling each check with a payload of its own was
// most of the time here (~1.8 us of a 10-field event). The walk also counts the strings of an accepted
// value, keys included, which decode.ts's lineSaysExactly needs.

import { z } from 'zod';
import {
  $ZodCheckGreaterThan,
  $ZodCheckLessThan,
  $ZodCheckMaxLength,
  $ZodCheckMinLength,
  $ZodCheckNumberFormat,
  $ZodCheckRegex,
  $ZodCustom,
} from 'zod/v4/core';

/** Whether a value is accepted. */
export type Accepts = (value: unknown) => boolean;

/**
 * The number of strings in an accepted value (keys included, at any depth, as decode.ts's stringCount
 * counts them), or -1 when the value is refused.
 */
export type Judge = (value: unknown) => number;

/** The internals of a zod 4 schema this module reads (zod/v4/core's $ZodType). */
interface Internals {
  _zod: {
    def: Def;
    /** An enum's or a literal's values. */
    values?: ReadonlySet<unknown>;
  };
}

interface Def {
  type: string;
  checks?: CheckInternals[];
  coerce?: boolean;
  shape?: Record<string, Internals>;
  catchall?: Internals;
  innerType?: Internals;
  element?: Internals;
  options?: Internals[];
  discriminator?: string;
  unionFallback?: boolean;
  values?: unknown[];
}

interface CheckDef {
  check: string;
  when?: (payload: Payload) => boolean;
  maximum?: number;
  minimum?: number;
  value?: unknown;
  inclusive?: boolean;
  format?: string;
  pattern?: RegExp;
  fn?: (value: unknown) => unknown;
}

interface CheckInternals {
  _zod: { def: CheckDef; check(payload: Payload): unknown };
}

interface Payload {
  value: unknown;
  issues: unknown[];
}

/** Leaf types whose parse only judges (their checks are judged apart). */
const LEAVES = new Set(['string', 'number', 'boolean', 'enum', 'literal']);

/** Checks that judge and never rewrite the value (an "overwrite" check, e.g. trim(), rewrites it). */
const judgesOnly = (checks: readonly CheckInternals[] | undefined) => (checks ?? []).every((c) => c._zod.def.check !== 'overwrite');

/** Runs one check on a value as zod's runChecks does for a value with no issue yet: true when it adds none. */
function passes(check: CheckInternals, value: unknown): boolean {
  const payload: Payload = { value, issues: [] };
  const when = check._zod.def.when;
  if (when && !when(payload)) return true;
  const result = check._zod.check(payload);
  // An async check cannot be judged here: the record goes to safeParse, which refuses it as zod does.
  if (result instanceof Promise) return false;
  return payload.issues.length === 0;
}

/**
 * The `when` zod gives its length checks (run on anything with a length): the shortcuts below are taken
 * only with it, a check given another `when` is judged by zod.
 */
const LENGTH_WHEN = (z.string().max(1)._zod.def.checks?.[0]?._zod.def as CheckDef | undefined)?.when;

/**
 * A shortcut for one of zod's checks: true only where the check surely passes (see the file header), or
 * undefined for a check it does not know. The value is one the leaf's type accepted.
 */
function shortcut(check: CheckInternals): ((value: never) => boolean) | undefined {
  const def = check._zod.def;
  if (check instanceof $ZodCheckMaxLength || check instanceof $ZodCheckMinLength) {
    if (def.when !== LENGTH_WHEN) return undefined;
    // A code point is one or two UTF-16 units: at most `maximum` units is at most `maximum` code points,
    // at least twice `minimum` units at least `minimum` code points (an array's length is its length).
    if (check instanceof $ZodCheckMaxLength) {
      const maximum = def.maximum!;
      return (value: { length: number }) => value.length <= maximum;
    }
    const twice = 2 * def.minimum!;
    return (value: { length: number }) => value.length >= twice;
  }
  if (def.when) return undefined;
  if (check instanceof $ZodCustom && typeof def.fn === 'function') {
    const fn = def.fn;
    return (value) => fn(value) === true;
  }
  if (check instanceof $ZodCheckRegex && def.pattern) {
    const pattern = def.pattern;
    return (value: string) => {
      pattern.lastIndex = 0;
      return pattern.test(value);
    };
  }
  if ((check instanceof $ZodCheckLessThan || check instanceof $ZodCheckGreaterThan) && typeof def.value === 'number') {
    const bound = def.value;
    if (check instanceof $ZodCheckLessThan) return def.inclusive ? (value: number) => value <= bound : (value: number) => value < bound;
    return def.inclusive ? (value: number) => value >= bound : (value: number) => value > bound;
  }
  if (check instanceof $ZodCheckNumberFormat && def.format === 'safeint') return (value: number) => Number.isSafeInteger(value);
  return undefined;
}

/**
 * A value's checks as one yes or no: each by its shortcut, and by zod where the shortcut does not say yes.
 * When every check has a shortcut, they are tried together first (no loop, no call per check that fails).
 */
function checker(checks: readonly CheckInternals[]): ((value: unknown) => boolean) | undefined {
  if (checks.length === 0) return undefined;
  const fasts = checks.map((check) => shortcut(check) as ((value: unknown) => boolean) | undefined);
  const judges = checks.map((check, i) => {
    const fast = fasts[i];
    return fast ? (value: unknown) => fast(value) || passes(check, value) : (value: unknown) => passes(check, value);
  });
  const each =
    judges.length === 1
      ? judges[0]!
      : (value: unknown) => {
          for (const judge of judges) if (!judge(value)) return false;
          return true;
        };
  if (fasts.some((fast) => fast === undefined)) return each;
  const [a, b, c] = fasts as ((value: unknown) => boolean)[];
  switch (fasts.length) {
    case 1:
      return each;
    case 2:
      return (value) => (a!(value) && b!(value)) || each(value);
    case 3:
      return (value) => (a!(value) && b!(value) && c!(value)) || each(value);
    default:
      return each;
  }
}

/**
 * A leaf: its type as zod's parse tests it (the same few lines: typeof, and for numbers no NaN or
 * infinity; enums and literals their set of values), then its checks. Counts 1 for a string value.
 */
function leaf(schema: Internals): Judge | undefined {
  const { def, values } = schema._zod;
  const judged = checker(def.checks ?? []);
  switch (def.type) {
    case 'string':
      return judged ? (value) => (typeof value === 'string' && judged(value) ? 1 : -1) : (value) => (typeof value === 'string' ? 1 : -1);
    case 'number':
      return (value) =>
        typeof value === 'number' && !Number.isNaN(value) && Number.isFinite(value) && (!judged || judged(value)) ? 0 : -1;
    case 'boolean':
      return (value) => (typeof value === 'boolean' && (!judged || judged(value)) ? 0 : -1);
    case 'enum':
    case 'literal':
      return values ? (value) => (values.has(value) && (!judged || judged(value)) ? (typeof value === 'string' ? 1 : 0) : -1) : undefined;
    default:
      return undefined;
  }
}

function strictObject(def: Def): Judge | undefined {
  // Only a strict object returns its input's keys as they are: a plain one strips unknown keys, a loose
  // one or a catchall would judge them with another schema.
  if (def.catchall?._zod.def.type !== 'never' || !def.shape) return undefined;
  // A prototype-less object rather than a Map: each key of every record is looked up here, and a keyed
  // load judged a 10k-event batch in 2.8 ms where Map.get took 3.2. Without a prototype, a key such as
  // `constructor` finds nothing.
  const fields: Record<string, { required: boolean; judge: Judge }> = Object.create(null);
  let required = 0;
  for (const [key, field] of Object.entries(def.shape)) {
    const optional = field._zod.def.type === 'optional';
    const judge = compile(optional ? field._zod.def.innerType! : field);
    if (!judge) return undefined;
    fields[key] = { required: !optional, judge };
    if (!optional) required++;
  }
  const judged = checker(def.checks ?? []);
  // Over the keys the value has (as zod's check of unknown keys walks them): each must be in the shape
  // and its value accepted; an optional key may hold undefined. Then every required key must have been seen.
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return -1;
    const record = value as Record<string, unknown>;
    let seen = 0;
    let strings = 0;
    for (const key in record) {
      const field = fields[key];
      if (field === undefined) return -1;
      strings++;
      const item = record[key];
      if (item === undefined) {
        if (field.required) return -1;
        continue;
      }
      const n = field.judge(item);
      if (n < 0) return -1;
      strings += n;
      if (field.required) seen++;
    }
    return seen === required && (!judged || judged(record)) ? strings : -1;
  };
}

function compile(schema: Internals): Judge | undefined {
  const def = schema._zod.def;
  if (!judgesOnly(def.checks) || def.coerce) return undefined;
  if (LEAVES.has(def.type)) return leaf(schema);
  switch (def.type) {
    case 'object':
      return strictObject(def);
    case 'optional': {
      const inner = compile(def.innerType!);
      return inner && ((value) => (value === undefined ? 0 : inner(value)));
    }
    case 'array': {
      const element = compile(def.element!);
      if (!element) return undefined;
      const judged = checker(def.checks ?? []);
      return (value) => {
        if (!Array.isArray(value)) return -1;
        if (judged && !judged(value)) return -1;
        let strings = 0;
        for (const item of value) {
          const n = element(item);
          if (n < 0) return -1;
          strings += n;
        }
        return strings;
      };
    }
    case 'union': {
      // A discriminated union without fallback: the option is the one whose literal the discriminator holds.
      const key = def.discriminator;
      if (key === undefined || def.unionFallback) return undefined;
      const byValue = new Map<unknown, Judge>();
      for (const option of def.options ?? []) {
        const tag = option._zod.def.shape?.[key]?._zod.def;
        const judge = compile(option);
        if (tag?.type !== 'literal' || !tag.values || !judge) return undefined;
        for (const v of tag.values) byValue.set(v, judge);
      }
      return (value) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return -1;
        const judge = byValue.get((value as Record<string, unknown>)[key]);
        return judge ? judge(value) : -1;
      };
    }
    default:
      return undefined;
  }
}

/**
 * For a schema that returns what it was given: the number of strings in a value it accepts, -1 for one
 * it refuses (`schema.safeParse(value).success` is false exactly then). Undefined for any other schema
 * (see the file header).
 */
export function compileJudge(schema: z.ZodType): Judge | undefined {
  return compile(schema as unknown as Internals);
}

/**
 * The yes or no of `schema.safeParse(value).success` for a schema that returns what it was given, or
 * undefined for any other schema (see the file header).
 */
export function compileAccepts(schema: z.ZodType): Accepts | undefined {
  const judge = compileJudge(schema);
  return judge && ((value) => judge(value) >= 0);
}
