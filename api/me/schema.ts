// GET /api/v0/me/status: the caller's own credits today and this month, and their limit (docs/metrics.md §7).
import { z } from 'zod';
import { Day, Month } from '../http/dates.ts';

export const ME_STATUS_PATH = '/api/v0/me/status';

export const MeStatus = z.strictObject({
  date: Day.describe('the current UTC day'),
  month: Month.describe('the current UTC month, YYYY-MM'),
  today_credits: z.number().describe("the caller's billable tokens (Standard Credits) today so far"),
  month_credits: z.number().describe("the caller's credits this UTC month so far, today's included"),
  limit: z.number().nullable().describe('the smaller of their credit limit and their own budget (null: neither)'),
  share: z.number().nullable().describe('month_credits / limit × 100, to 2 decimals (null without a limit)'),
  enforced: z.boolean().describe('whether the organization blocks prompts at the limit'),
});
export type MeStatus = z.infer<typeof MeStatus>;
