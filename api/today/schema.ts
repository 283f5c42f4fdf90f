// The query and answer of GET /api/v1/analytics/today (docs/metrics.md §7): the daily endpoints' records of the current
// UTC day, over what has arrived so far.
import { z } from 'zod';
import { ActivityRecord, ProductivityRecord, TokenRecord, ToolRecord } from '../analytics/schema.ts';
import { CodeRecord } from '../code/schema.ts';
import { Day, IsoTime } from '../http/dates.ts';
import { teamParam } from '../http/query.ts';

export const TODAY_PATH = '/api/v1/analytics/today';

export const TodayResponse = z.strictObject({
  data: z.strictObject({
    date: Day.describe('the current UTC day'),
    as_of: IsoTime.nullable().describe('the time of the newest event, usage or message counted (null: none yet today)'),
    provisional: z.literal(true).describe('the figures change as records arrive; the nightly batch writes the final ones'),
    tokens: TokenRecord,
    tools: ToolRecord,
    activity: ActivityRecord,
    productivity: ProductivityRecord,
    code: CodeRecord.describe(
      'the /code record of today over what has arrived: edits, and landed commits counted as soon as the server has them (docs/metrics.md §5)',
    ),
  }),
  meta: z.strictObject({
    org_id: z.string(),
    start_date: Day.describe('the current UTC day (YYYY-MM-DD): the range of the answer, as on the daily endpoints'),
    end_date: Day.describe('the current UTC day (YYYY-MM-DD)'),
    unpriced_models: z.array(z.string()).describe("today's models without a dollar price: their cost_usd is null (docs/metrics.md §8)"),
  }),
});
export type TodayResponse = z.infer<typeof TodayResponse>;

export const TodayQuery = z.strictObject({
  team: teamParam(
    "an agentmeter extension: the records over the users who are members today of this team or of a team below it (403 below the organization's minimum team size; owners and managers)",
  ),
});
