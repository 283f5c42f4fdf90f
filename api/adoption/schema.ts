// Adoption (GET /api/v0/organization/adoption, docs/metrics.md, "Where this contract is silent"): who on the roster has ever
// sent an event, who did in the last 7 and 28 days, by agent and by team, who never did and who went
// quiet. Owners and managers only: it names people.
import { z } from 'zod';
import { IsoTime } from '../http/dates.ts';

export const ADOPTION_PATH = '/api/v0/organization/adoption';
/** Days without an event after which an activated person counts as quiet. */
export const QUIET_DAYS = 14;

const Counts = {
  activated: z.number().int().describe('People with at least one event ever'),
  active7: z.number().int().describe('People with an event in the 7 days before asOf'),
  active28: z.number().int().describe('People with an event in the 28 days before asOf'),
};

export const AdoptionPerson = z.strictObject({
  userId: z.string(),
  email: z.string(),
  role: z.string(),
  teams: z.array(z.string()).describe('The teams they are a member of on the day of asOf'),
  agents: z.array(z.string()).describe('The agents they ever sent events from'),
  firstEventAt: IsoTime.nullable(),
  lastEventAt: IsoTime.nullable(),
  active7: z.boolean(),
  active28: z.boolean(),
  state: z
    .enum(['never', 'quiet', 'active'])
    .describe(`never: no event ever; quiet: none in the last ${QUIET_DAYS} days; active: one since`),
});
export type AdoptionPerson = z.infer<typeof AdoptionPerson>;

export const Adoption = z.strictObject({
  asOf: IsoTime.describe('The instant the windows end at (the server clock)'),
  quietDays: z.number().int(),
  totals: z.strictObject({
    people: z.number().int().describe('People on the roster (users of the organization the directory has not deactivated)'),
    ...Counts,
    neverActivated: z.number().int(),
    quiet: z.number().int(),
  }),
  byAgent: z.array(z.strictObject({ agent: z.string(), ...Counts })),
  byTeam: z.array(
    z.strictObject({
      teamId: z.string().nullable().describe('null: the people in no team'),
      team: z.string(),
      people: z.number().int(),
      ...Counts,
    }),
  ),
  people: z.array(AdoptionPerson),
});
export type Adoption = z.infer<typeof Adoption>;
