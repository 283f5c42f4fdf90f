// The weekly digest (docs/metrics.md §9) at the boundary: its body (the webhook's JSON, the preview), and
// the sent digests as the alerts list shows them.
import { z } from 'zod';
import { DeliveryView } from '../anomalies/schema.ts';
import { Day, IsoTime } from '../http/dates.ts';

export const DIGEST_PREVIEW_PATH = '/api/v0/organization/digest/preview';

const Cost = z.number().describe('US dollars, 4 decimals (usage without a price adds nothing)');
/** A week's dollars: null when it had usage and none of it was priced (docs/metrics.md §8), $0 without usage. */
const WeekCost = z
  .number()
  .nullable()
  .describe(
    'US dollars, 4 decimals: the priced usage (usage without a price adds nothing); null when the week had usage and none of it had a price; 0 without usage',
  );

export const DigestFigures = z.strictObject({
  week: z.strictObject({ from: Day, to: Day }).describe('the week reported, Monday to Sunday (UTC)'),
  cost_usd: WeekCost,
  unpriced_models: z
    .array(z.string())
    .optional()
    .describe(
      "the week's models without a dollar price, sorted: their usage is not in the dollars (absent: none, or sent before it was named)",
    ),
  previous_cost_usd: WeekCost.describe(
    'the week before, as cost_usd: null when it had usage and none of it had a price (see previous_unpriced_models), 0 without usage',
  ),
  previous_unpriced_models: z
    .array(z.string())
    .optional()
    .describe(
      "the week before's models without a dollar price, sorted: their usage is not in previous_cost_usd (absent: none, or sent before it was named)",
    ),
  change_usd: z
    .number()
    .nullable()
    .describe('cost_usd - previous_cost_usd, 4 decimals; null when either is null (usage without any price: no change to show)'),
  change_pct: z
    .number()
    .nullable()
    .describe(
      'the change in percent of the week before, 1 decimal; null when the week before cost $0 (no usage, or usage priced at $0) or when either week’s dollars are null',
    ),
  top_teams: z
    .array(z.strictObject({ team: z.string(), cost_usd: Cost }))
    .describe('by cost, at most 5 (direct members, as group_by=team)'),
  top_people: z.array(z.strictObject({ email: z.string(), cost_usd: Cost })).describe('by cost, at most 5'),
  top_models: z.array(z.strictObject({ model: z.string(), cost_usd: Cost })).describe('by cost, at most 5'),
  landed: z
    .strictObject({ lines_added: z.number(), agent_lines: z.number(), agent_share: z.number() })
    .describe("the week's landed commits (/code): lines added, the agents' lines, their share (4 decimals)"),
  anomalies: z
    .array(
      z.strictObject({
        scope: z.enum(['user', 'team']),
        email: z.string().optional(),
        team: z.string().optional(),
        day: Day,
        cost_usd: Cost,
        median_usd: Cost,
      }),
    )
    .describe("the week's anomaly alerts"),
  budgets_at_risk: z
    .array(
      z.strictObject({
        scope: z.enum(['org', 'team', 'user']),
        team: z.string().optional(),
        email: z.string().optional(),
        unit: z.enum(['usd', 'credits']),
        limit: z.number(),
        forecast: z.number().describe('the month-end forecast in the budget’s unit'),
      }),
    )
    .describe('budgets whose month-end forecast (GET /api/v0/organization/forecast) is above them, as of forecast_date'),
  forecast_date: Day.describe('the day the forecast was made'),
});
export type DigestFigures = z.infer<typeof DigestFigures>;

/** The webhook's JSON body (type digest.weekly). */
export const DigestEvent = DigestFigures.extend({
  id: z.string(),
  type: z.literal('digest.weekly'),
  org_id: z.string(),
  sent_at: IsoTime,
});
export type DigestEvent = z.infer<typeof DigestEvent>;

export const DigestPreview = z.strictObject({
  sends_at: IsoTime.describe('when this digest is sent (Monday 09:00 UTC, or the next tick when one is due)'),
  complete: z.boolean().describe('false while the week reported is not over: its figures so far (through the last batch)'),
  destinations: z.number().int().describe('how many destinations it goes to (0: the digest is off)'),
  digest: DigestFigures,
});
export type DigestPreview = z.infer<typeof DigestPreview>;

export const DigestView = z.strictObject({
  id: z.string(),
  week: z.strictObject({ from: Day, to: Day }),
  cost_usd: WeekCost,
  sent_at: IsoTime,
  deliveries: z.array(DeliveryView),
});
export type DigestView = z.infer<typeof DigestView>;
