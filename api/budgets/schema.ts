// Budgets and alerts (docs/metrics.md §7) at the boundary: the PUT body, the GET answers, the webhook body.
import { z } from 'zod';
import { teamNameSchema } from '../../common/team-name.ts';
import { AnomalyView } from '../anomalies/schema.ts';
import { DigestView } from '../digest/schema.ts';
import { IsoTime, Month, utcMonth } from '../http/dates.ts';

export const BUDGETS_PATH = '/api/v0/organization/budgets';
export const ALERTS_PATH = '/api/v0/organization/alerts';
export const DEFAULT_THRESHOLDS = [50, 75, 90, 100] as const;
/** What a budget counts: Standard Credits or US dollars (docs/metrics.md §8). */
export const BudgetUnit = z.enum(['credits', 'usd']);
export type BudgetUnit = z.infer<typeof BudgetUnit>;

const Url = z.string().max(2048).describe('an http(s) URL; private, loopback and link-local addresses are refused');

export const Destination = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('webhook'),
    url: Url,
    secret: z
      .string()
      .min(16, 'a webhook secret takes at least 16 characters')
      .max(256)
      .optional()
      .describe('the HMAC-SHA256 key of X-Agentmeter-Signature; left out on a URL the budget already had, the stored one is kept'),
  }),
  z.strictObject({ type: z.literal('slack'), url: Url.describe('a Slack incoming-webhook URL') }),
]);
export type Destination = z.infer<typeof Destination>;

export const Budget = z
  .strictObject({
    scope: z.enum(['org', 'team', 'user']),
    team: teamNameSchema('team').optional().describe('the team, by name (compared in NFC, case-insensitively)'),
    email: z.email().optional(),
    monthlyCredits: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).optional().describe('Standard Credits per UTC month'),
    monthlyUsd: z
      .number()
      .positive()
      .max(1e12)
      .optional()
      .describe('US dollars per UTC month (docs/metrics.md §8): the alerts compare the month’s dollars. Give this or monthlyCredits'),
    thresholds: z
      .array(z.number().int().min(1).max(1000))
      .min(1)
      .max(10)
      .optional()
      .describe('percentages of the monthly amount (default 50, 75, 90, 100)'),
    destinations: z.array(Destination).max(5).default([]),
  })
  .superRefine((b, ctx) => {
    if (b.scope === 'team' && !b.team) ctx.addIssue({ code: 'custom', message: 'a team budget names its team', path: ['team'] });
    if (b.scope === 'user' && !b.email) ctx.addIssue({ code: 'custom', message: 'a user budget names its user by email', path: ['email'] });
    if (b.scope !== 'team' && b.team) ctx.addIssue({ code: 'custom', message: 'team is only for scope "team"', path: ['team'] });
    if (b.scope !== 'user' && b.email) ctx.addIssue({ code: 'custom', message: 'email is only for scope "user"', path: ['email'] });
    if ((b.monthlyCredits === undefined) === (b.monthlyUsd === undefined))
      ctx.addIssue({ code: 'custom', message: 'a budget has either monthlyCredits or monthlyUsd (one of them)', path: ['monthlyCredits'] });
    if (b.thresholds && new Set(b.thresholds).size !== b.thresholds.length)
      ctx.addIssue({ code: 'custom', message: 'thresholds must not repeat', path: ['thresholds'] });
  });
export type Budget = z.infer<typeof Budget>;

export const BudgetsBody = z.strictObject({ budgets: z.array(Budget).max(500) });

/** PATCH: one budget set, or one removed (by its scope and team or e-mail). */
export const BudgetPatch = z
  .strictObject({
    budget: Budget.optional(),
    remove: z
      .strictObject({ scope: z.enum(['org', 'team', 'user']), team: teamNameSchema('team').optional(), email: z.email().optional() })
      .optional(),
  })
  .refine((p) => (p.budget === undefined) !== (p.remove === undefined), { message: 'give either budget or remove' });

export const DestinationView = z.strictObject({
  type: z.enum(['webhook', 'slack']),
  url: z.string().describe('shown as its scheme and host only (`https://hooks.slack.com/…`): a path or query often holds the secret'),
  secret: z.literal('set').optional().describe('present when a webhook secret is stored; the secret itself is never answered'),
});

export const BudgetView = z.strictObject({
  scope: z.enum(['org', 'team', 'user']),
  team: z.string().optional(),
  email: z.string().optional(),
  monthlyCredits: z.number().optional(),
  monthlyUsd: z.number().optional(),
  unit: BudgetUnit,
  thresholds: z.array(z.number()),
  destinations: z.array(DestinationView),
  usage: z
    .number()
    .describe(
      "the UTC month so far, today's included, in the budget's unit: billable tokens (Standard Credits), or US dollars to 4 decimals",
    ),
  percentage: z.number().describe('usage / the monthly amount × 100, to 2 decimals'),
});

export const BudgetList = z.strictObject({ month: Month.describe('the current UTC month, YYYY-MM'), budgets: z.array(BudgetView) });
export type BudgetList = z.infer<typeof BudgetList>;

const BudgetObject = z.strictObject({
  scope: z.string(),
  team: z.string().optional(),
  email: z.string().optional(),
  monthlyCredits: z.number().optional(),
  monthlyUsd: z.number().optional(),
});

export const AlertView = z.strictObject({
  id: z.string(),
  budget: BudgetObject,
  month: Month.describe('the UTC month the alert is of, YYYY-MM'),
  threshold: z.number(),
  unit: BudgetUnit,
  usage: z.number(),
  limit: z.number(),
  fired_at: IsoTime,
  deliveries: z.array(
    z.strictObject({
      type: z.enum(['webhook', 'slack']),
      state: z.enum(['pending', 'delivered', 'undelivered']),
      attempts: z.number(),
      last_error: z.string().nullable(),
      delivered_at: IsoTime.nullable(),
    }),
  ),
});
export const AlertList = z.strictObject({
  alerts: z.array(AlertView).describe('budget alerts'),
  anomalies: z.array(AnomalyView).describe('cost anomaly alerts (docs/metrics.md §9), newest first'),
  digests: z.array(DigestView).describe('weekly digests sent, newest week first'),
});
export type AlertList = z.infer<typeof AlertList>;
export const AlertsQuery = z.strictObject({
  month: utcMonth('month is YYYY-MM')
    .optional()
    .describe(
      'only the alerts of this UTC month (an anomaly: of its day; a digest: sent in it); default: all, newest first, at most 500 of each',
    ),
});

/** The webhook's JSON body (type budget.threshold). */
export const ThresholdEvent = z.strictObject({
  id: z.string(),
  type: z.literal('budget.threshold'),
  org_id: z.string(),
  budget: BudgetObject,
  threshold: z.number(),
  unit: BudgetUnit.describe('what usage and limit count: Standard Credits, or US dollars'),
  usage: z.number(),
  limit: z.number(),
  month: Month.describe('the UTC month the alert is of, YYYY-MM'),
  fired_at: IsoTime,
});
export type ThresholdEvent = z.infer<typeof ThresholdEvent>;
