// Anomaly alerts (docs/metrics.md §9) at the boundary: the webhook's body and the alerts list's entries.
import { z } from 'zod';
import { Day, IsoTime } from '../http/dates.ts';

const Subject = {
  scope: z.enum(['user', 'team']).describe("a person's dollars, or a team's (its members that day, the teams below it included)"),
  email: z.string().optional().describe('the person (scope user)'),
  team: z.string().optional().describe('the team (scope team)'),
  day: Day.describe('the UTC day, YYYY-MM-DD (today so far counts)'),
  cost_usd: z.number().describe('the dollars of the day when it fired (4 decimals)'),
  median_usd: z.number().describe('the median of the days with usage of the 28 before'),
  multiple: z.number().describe('the cost is above multiple × median_usd (3)'),
  floor_usd: z.number().describe("and above the organization's floor"),
  days_with_usage: z.number().int().describe('the days with usage of the 28 before (7 at least for an anomaly to fire)'),
  fired_at: IsoTime,
};

/** The webhook's JSON body (type cost.anomaly). */
export const AnomalyEvent = z.strictObject({ id: z.string(), type: z.literal('cost.anomaly'), org_id: z.string(), ...Subject });
export type AnomalyEvent = z.infer<typeof AnomalyEvent>;

const DeliveryView = z.strictObject({
  type: z.enum(['webhook', 'slack']),
  state: z.enum(['pending', 'delivered', 'undelivered']),
  attempts: z.number(),
  last_error: z.string().nullable(),
  delivered_at: IsoTime.nullable(),
});

export { DeliveryView };

export const AnomalyView = z.strictObject({ id: z.string(), ...Subject, deliveries: z.array(DeliveryView) });
export type AnomalyView = z.infer<typeof AnomalyView>;
