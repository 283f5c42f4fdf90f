// Whether zod accepts a record, without zod building the copy of it that safeParse returns.
//
// Validating a wire record with safeParse was the largest part of decoding an ingest batch (~3 µs of an
// event's ~8 µs on a decode worker): a strict object's parse makes a payload and an issues array for each
// of the ~30 keys of its shape (present or not), a new object for the result, and an array for each list.
// For a schema that cannot change a value (strict objects, optional, arrays, a discriminated union, and
// strings, numbers, booleans, enums and literals with checks that only judge), the value it returns is
// the value it was given, so only its yes or no is needed. `accepts` gives that yes or no from zod
// itself: every leaf value (and every check of an array or object) is judged by the schema's own
// `_zod.run` or `_zod.check`; only the walk over objects, arrays and the union is done here. A schema with
// anything else (a transform, a default, a coercion, a non-strict object, which strips keys) is not
// compiled: `compileAccepts` returns undefined and the caller uses safeParse. A record refused here is
// parsed again with safeParse for zod's own reason.
import type { z } from 'zod';

/** Whether a value is accepted. */
export type Accepts = (value: unknown) => boolean;

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

interface CheckInternals {
  _zod: { def: { check: string; when?: (payload: Payload) => boolean }; check(payload: Payload): unknown };
}

interface Payload {
  value: unknown;
  issues: unknown[];
}

/** Leaf types whose parse only judges (their checks are judged apart). */
const LEAVES = new Set(['string', 'number', 'boolean', 'enum', 'literal']);

/** Checks that judge and never rewrite the value (an "overwrite" check, e.g. trim(), rewrites it). */
const judgesOnly = (checks: readonly CheckInternals[] | undefined) => (checks ?? []).every((c) => c._zod.def.check !== 'overwrite');

/** Runs checks on a value as zod's runChecks does for a value with no issue yet: true when none adds one. */
function passes(checks: readonly CheckInternals[], value: unknown): boolean {
  const payload: Payload = { value, issues: [] };
  for (const check of checks) {
    const when = check._zod.def.when;
    if (when && !when(payload)) continue;
    const result = check._zod.check(payload);
    // An async check cannot be judged here: the record goes to safeParse, which refuses it as zod does.
    if (result instanceof Promise) return false;
    if (payload.issues.length) return false;
  }
  return true;
}

/**
 * A leaf: its type as zod's parse tests it (the same few lines: typeof, and for numbers no NaN or
 * infinity; enums and literals their set of values), then its checks, run by zod.
 */
function leaf(schema: Internals): Accepts | undefined {
  const { def, values } = schema._zod;
  const checks = def.checks ?? [];
  const judged = (value: unknown) => checks.length === 0 || passes(checks, value);
  switch (def.type) {
    case 'string':
      return (value) => typeof value === 'string' && judged(value);
    case 'number':
      return (value) => typeof value === 'number' && !Number.isNaN(value) && Number.isFinite(value) && judged(value);
    case 'boolean':
      return (value) => typeof value === 'boolean' && judged(value);
    case 'enum':
    case 'literal':
      return values ? (value) => values.has(value) && judged(value) : undefined;
    default:
      return undefined;
  }
}

function strictObject(def: Def): Accepts | undefined {
  // Only a strict object returns its input's keys as they are: a plain one strips unknown keys, a loose
  // one or a catchall would judge them with another schema.
  if (def.catchall?._zod.def.type !== 'never' || !def.shape) return undefined;
  const fields = new Map<string, { required: boolean; accepts: Accepts }>();
  let required = 0;
  for (const [key, field] of Object.entries(def.shape)) {
    const optional = field._zod.def.type === 'optional';
    const accepts = compile(optional ? field._zod.def.innerType! : field);
    if (!accepts) return undefined;
    fields.set(key, { required: !optional, accepts });
    if (!optional) required++;
  }
  const checks = def.checks ?? [];
  // Over the keys the value has (as zod's check of unknown keys walks them): each must be in the shape
  // and its value accepted; an optional key may hold undefined. Then every required key must have been seen.
  return (value) => {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
    const record = value as Record<string, unknown>;
    let seen = 0;
    for (const key in record) {
      const field = fields.get(key);
      if (field === undefined) return false;
      const item = record[key];
      if (item === undefined) {
        if (field.required) return false;
        continue;
      }
      if (!field.accepts(item)) return false;
      if (field.required) seen++;
    }
    return seen === required && (checks.length === 0 || passes(checks, record));
  };
}

function compile(schema: Internals): Accepts | undefined {
  const def = schema._zod.def;
  if (!judgesOnly(def.checks) || def.coerce) return undefined;
  if (LEAVES.has(def.type)) return leaf(schema);
  switch (def.type) {
    case 'object':
      return strictObject(def);
    case 'optional': {
      const inner = compile(def.innerType!);
      return inner && ((value) => value === undefined || inner(value));
    }
    case 'array': {
      const element = compile(def.element!);
      if (!element) return undefined;
      const checks = def.checks ?? [];
      return (value) => {
        if (!Array.isArray(value)) return false;
        if (checks.length && !passes(checks, value)) return false;
        for (const item of value) if (!element(item)) return false;
        return true;
      };
    }
    case 'union': {
      // A discriminated union without fallback: the option is the one whose literal the discriminator holds.
      const key = def.discriminator;
      if (key === undefined || def.unionFallback) return undefined;
      const byValue = new Map<unknown, Accepts>();
      for (const option of def.options ?? []) {
        const tag = option._zod.def.shape?.[key]?._zod.def;
        const accepts = compile(option);
        if (tag?.type !== 'literal' || !tag.values || !accepts) return undefined;
        for (const v of tag.values) byValue.set(v, accepts);
      }
      return (value) => {
        if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
        const accepts = byValue.get((value as Record<string, unknown>)[key]);
        return accepts?.(value) === true;
      };
    }
    default:
      return undefined;
  }
}

/**
 * The yes or no of `schema.safeParse(value).success` for a schema that returns what it was given, or
 * undefined for any other schema (see the file header).
 */
export function compileAccepts(schema: z.ZodType): Accepts | undefined {
  return compile(schema as unknown as Internals);
}
