// Anomaly and digest settings (docs/metrics.md §9) at the boundary: the PATCH body and the answer.
import { z } from 'zod';
import { HISTORY_DAYS, MIN_DAYS_WITH_USAGE, MULTIPLE } from '../anomalies/figures.ts';
import { Destination, DestinationView } from '../budgets/schema.ts';
import { IsoTime } from '../http/dates.ts';

export const ALERT_SETTINGS_PATH = '/api/v0/organization/alert-settings';

const Destinations = z.array(Destination).max(5);

export const AlertSettingsPatch = z
  .strictObject({
    anomalies: z
      .strictObject({
        floorUsd: z
          .number()
          .min(0)
          .max(1e9)
          .optional()
          .describe('an anomaly needs a day above this many US dollars too (default 20); left out: kept'),
        destinations: Destinations.optional().describe('where anomaly alerts go (none: listed, not sent); left out: kept'),
      })
      .optional(),
    digest: z
      .strictObject({
        destinations: Destinations.describe('where the Monday digest goes; none turns the digest off'),
      })
      .optional(),
  })
  .refine((p) => p.anomalies !== undefined || p.digest !== undefined, { message: 'give anomalies, digest or both' });
export type AlertSettingsPatch = z.infer<typeof AlertSettingsPatch>;

export const AlertSettingsView = z.strictObject({
  anomalies: z.strictObject({
    floorUsd: z.number(),
    multiple: z.literal(MULTIPLE).describe('a day above this multiple of the median'),
    historyDays: z.literal(HISTORY_DAYS).describe('the median is of the days with usage of this many days before'),
    minDaysWithUsage: z.literal(MIN_DAYS_WITH_USAGE).describe('fewer days with usage than this: no anomaly (too little history)'),
    destinations: z.array(DestinationView),
  }),
  digest: z.strictObject({
    destinations: z.array(DestinationView),
    next: IsoTime.nullable().describe('when the next digest is sent (UTC; Monday 09:00, or the next tick when one is due); null when off'),
  }),
});
export type AlertSettingsView = z.infer<typeof AlertSettingsView>;
