// The API's day and time schemas (api/http/dates.ts): what they take, and the format each gives the
// OpenAPI document through jsonSchema, on both sides (a query's input, an answer's output).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Day, dayParamError, IsoTime, MONTH_PATTERN, Month, utcDay, utcMonth } from '../../api/http/dates.ts';
import { jsonSchema } from '../../api/openapi/document.ts';

describe('Day', () => {
  it('takes YYYY-MM-DD and nothing else', () => {
    expect(Day.safeParse('2026-11-28').success).toBe(true);
    for (const bad of ['2026-1-28', '2026-11-28T00:00:00Z', '28/11/2026', '']) expect(Day.safeParse(bad).success, bad).toBe(false);
  });

  it('is format date, described or nullable', () => {
    for (const io of ['input', 'output'] as const) {
      expect(jsonSchema(Day.describe('a day'), io)).toMatchObject({ type: 'string', format: 'date', description: 'a day' });
      expect(jsonSchema(Day.nullable(), io)).toMatchObject({ anyOf: [{ type: 'string', format: 'date' }, { type: 'null' }] });
    }
  });

  it('utcDay keeps a route’s own words for a bad or missing day, with the same format', () => {
    const startDate = utcDay(dayParamError('startDate'), 'startDate is required (YYYY-MM-DD)');
    const query = z.strictObject({ startDate });
    expect(query.safeParse({ startDate: '2026-3-2' }).error?.issues[0]?.message).toBe(
      'startDate "2026-3-2" is not a valid date (YYYY-MM-DD)',
    );
    expect(query.safeParse({}).error?.issues[0]?.message).toBe('startDate is required (YYYY-MM-DD)');
    expect(jsonSchema(startDate, 'input')).toMatchObject({ format: 'date', pattern: String.raw`^\d{4}-\d{2}-\d{2}$` });
  });
});

describe('Month', () => {
  it('takes YYYY-MM with a month 01 to 12, and nothing else', () => {
    for (const good of ['2026-01', '2026-11', '2026-12']) expect(Month.safeParse(good).success, good).toBe(true);
    for (const bad of ['2026-13', '2026-00', '2026-3', '2026-03-01', '202603', '']) expect(Month.safeParse(bad).success, bad).toBe(false);
    expect(utcMonth('month is YYYY-MM').safeParse('2026-13').error?.issues[0]?.message).toBe('month is YYYY-MM');
  });

  it('carries its pattern (JSON Schema has no month format) on both sides, described or optional', () => {
    for (const io of ['input', 'output'] as const) {
      expect(jsonSchema(Month, io)).toMatchObject({ type: 'string', pattern: MONTH_PATTERN.source, description: 'a UTC month, YYYY-MM' });
      expect(jsonSchema(Month.describe('this month'), io)).toMatchObject({ pattern: MONTH_PATTERN.source, description: 'this month' });
      expect(jsonSchema(z.strictObject({ month: utcMonth().optional() }), io)).toMatchObject({
        properties: { month: { pattern: MONTH_PATTERN.source } },
      });
    }
  });
});

describe('IsoTime', () => {
  it('takes an ISO-8601 instant with its offset, not DuckDB’s own spelling', () => {
    for (const good of ['2026-11-28T01:50:00.123Z', '2026-11-28T01:50:00Z', '2026-11-28T02:50:00+01:00'])
      expect(IsoTime.safeParse(good).success, good).toBe(true);
    for (const bad of ['2026-11-28 01:50:00.123', '2026-11-28T01:50:00', '2026-11-28', '1764294600000'])
      expect(IsoTime.safeParse(bad).success, bad).toBe(false);
  });

  it('is format date-time on both sides', () => {
    for (const io of ['input', 'output'] as const)
      expect(jsonSchema(IsoTime.nullable().describe('when'), io)).toMatchObject({
        anyOf: [{ type: 'string', format: 'date-time' }, { type: 'null' }],
        description: 'when',
      });
  });
});
