// The organization's own prices (docs/metrics.md §8) at the boundary: a price entry, the list, the query
// that names one entry to remove.
import { z } from 'zod';
import { parseDay } from '../../common/time.ts';
import { Day, IsoTime, utcDay } from '../http/dates.ts';

export const PRICING_PATH = '/api/v0/organization/pricing';

const EffectiveFrom = utcDay('effectiveFrom is YYYY-MM-DD').refine(
  (d) => parseDay(d) !== undefined,
  'effectiveFrom must be a real calendar day, YYYY-MM-DD',
);
const Mtok = (what: string) =>
  z.number().nonnegative(`${what} is US dollars per million tokens, 0 or more`).max(100_000).describe(`US dollars per million ${what}`);

export const PriceEntry = z.strictObject({
  model: z
    .string()
    .min(1)
    .max(256)
    .regex(/^[\x21-\x7e]+$/, 'model is a model id or a pattern with *, without spaces')
    .describe('a model id as the agents report it, or a pattern with * (any run of characters)'),
  effectiveFrom: EffectiveFrom.describe('the UTC day the price applies from (a later entry of the same model takes over on its day)'),
  inputMtok: Mtok('input tokens'),
  outputMtok: Mtok('output tokens'),
  cacheReadMtok: Mtok('cache-read tokens')
    .nullable()
    .optional()
    .describe('US dollars per million cache-read tokens (default: the input price)'),
  cacheWriteMtok: Mtok('cache-write tokens')
    .nullable()
    .optional()
    .describe('US dollars per million cache-write tokens, five-minute ones (default: the input price)'),
  cacheWrite1hMtok: Mtok('one-hour cache-write tokens')
    .nullable()
    .optional()
    .describe('US dollars per million one-hour cache-write tokens (default: the cache-write price)'),
  note: z.string().max(200).nullable().optional().describe('why this price (a contract, a local model)'),
});
export type PriceEntry = z.infer<typeof PriceEntry>;

export const PriceView = PriceEntry.required().extend({
  updatedAt: IsoTime,
  updatedBy: z.string().describe('the user id who set it'),
});
export type PriceView = z.infer<typeof PriceView>;

export const PriceList = z.strictObject({
  prices: z.array(PriceView),
  rebuilt: z
    .strictObject({ from: Day, to: Day })
    .nullable()
    .optional()
    .describe('after a change: the days whose dollars were computed again (null when none had passed yet)'),
});
export type PriceList = z.infer<typeof PriceList>;

export const PriceKeyQuery = z.strictObject({
  model: z.string().min(1).max(256),
  effectiveFrom: EffectiveFrom,
});
