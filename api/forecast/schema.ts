// The month-end forecast (docs/metrics.md §9) at the boundary.
import { z } from 'zod';
import { Day, Month } from '../http/dates.ts';

export const FORECAST_PATH = '/api/v0/organization/forecast';

const Amounts = z.strictObject({
  month_to_date: z.number().describe("the UTC month so far, today's included"),
  forecast: z.number().describe('month_to_date + the mean of the last 7 complete days × days_left'),
  low: z.number().describe('month_to_date + the lowest of those 7 days × days_left'),
  high: z.number().describe('month_to_date + the highest of those 7 days × days_left'),
});
const Projection = z.strictObject({
  usd: Amounts.describe('US dollars (4 decimals; usage without a price adds nothing)'),
  credits: Amounts.describe('Standard Credits (rounded to whole credits)'),
  budget: z
    .strictObject({ unit: z.enum(['usd', 'credits']), limit: z.number(), at_risk: z.boolean().describe('the forecast is above the limit') })
    .nullable()
    .describe('the budget of this scope, if any'),
});
export type Projection = z.infer<typeof Projection>;

export const ForecastAnswer = z.strictObject({
  date: Day.describe('today (UTC)'),
  month: Month.describe('the current UTC month, YYYY-MM'),
  days_left: z.number().int().describe('the days of the month after today'),
  window: z.strictObject({ from: Day, to: Day }).describe('the last 7 complete days (UTC)'),
  organization: Projection,
  teams: z.array(Projection.extend({ team: z.string() })).describe('each team with a budget'),
  users: z.array(Projection.extend({ email: z.string() })).describe('each person with a budget'),
});
export type ForecastAnswer = z.infer<typeof ForecastAnswer>;
