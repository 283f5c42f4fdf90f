// The weekly digest (docs/metrics.md §9) as a check of the alert engine (api/budgets/alerts.ts), run at every
// tick: once Monday 09:00 UTC has passed, an organization with digest destinations that has no digest of
// the week before gets one (sent at the next tick after 09:00 when the server was down then; the table's
// key refuses a second). `build` is the one builder: the preview route answers with it too.
import type { Logger } from '../../common/logger.ts';
import type { AlertSettingsStore } from '../alert-settings/store.ts';
import type { AnomalyStore } from '../anomalies/store.ts';
import type { AlertCheck, AlertMessage } from '../budgets/alerts.ts';
import type { CodeStore } from '../code/store.ts';
import { type ForecastDeps, monthEndForecast } from '../forecast/routes.ts';
import type { TeamAnalytics } from '../teams/analytics.ts';
import { addDays } from '../teams/figures.ts';
import { digestFigures, dueDigest } from './figures.ts';
import { digestSlack } from './messages.ts';
import type { DigestFigures } from './schema.ts';
import { DIGEST_PREFIX, type DigestStore } from './store.ts';

export interface DigestDeps {
  store: DigestStore;
  settings: AlertSettingsStore;
  anomalies: AnomalyStore;
  code: CodeStore;
  teams: TeamAnalytics;
  forecast: ForecastDeps;
  log: Logger;
  now: () => number;
  /** Runs the organization's batch through the server's runner (yesterday and the days with new records). */
  runBatch: (orgId: string) => Promise<unknown>;
}

const daysOf = (from: string, to: string) => {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
};

/** The digest of a week (Monday to Sunday), from the daily batch's figures and the forecast now. */
export async function buildDigest(deps: DigestDeps, orgId: string, week: { from: string; to: string }): Promise<DigestFigures> {
  const previous = { from: addDays(week.from, -7), to: addDays(week.to, -7) };
  const [tokens, previousWeek, teams, landed, anomalies, forecast] = await Promise.all([
    deps.store.tokens(orgId, week.from, week.to),
    deps.store.previous(orgId, previous.from, previous.to),
    deps.teams.grouped('tokens', orgId, daysOf(week.from, week.to), week.from, week.to),
    deps.code.landed(orgId, week.from, week.to, null),
    deps.anomalies.between(orgId, week.from, week.to),
    monthEndForecast(deps.forecast, orgId),
  ]);
  return digestFigures({
    week,
    tokens,
    previous: previousWeek,
    teams: teams as { group_key: string; cost_usd: number | null }[],
    landed,
    anomalies,
    forecast,
  });
}

export class DigestCheck implements AlertCheck {
  readonly prefix = DIGEST_PREFIX;
  readonly onTick = true;

  constructor(private readonly deps: DigestDeps) {}

  orgs(): Promise<string[]> {
    return this.deps.settings.orgsWithDigest();
  }

  async check(orgId: string): Promise<number> {
    const { store, settings, log } = this.deps;
    const now = this.deps.now();
    const chosen = await settings.get(orgId);
    if (chosen.digestDestinations.length === 0 || (await store.dueSent(orgId, now, chosen.digestSince))) return 0;
    const { week } = dueDigest(now);
    // The week's Sunday was today at the last scheduled batch's time only if that ran before midnight; the
    // organization's batch (incremental: the days with records since, and yesterday) makes the week's rows
    // the ones the API answers with, whatever the schedule did.
    await this.deps.runBatch(orgId);
    const figures = await buildDigest(this.deps, orgId, week);
    const id = await store.fire(orgId, figures, chosen.digestDestinations, new Date(now).toISOString());
    if (!id) return 0;
    log.info(
      { alert: id, org: orgId, week: week.from, costUsd: figures.cost_usd, destinations: chosen.digestDestinations.length },
      'weekly digest fired',
    );
    return 1;
  }

  async message(id: string): Promise<AlertMessage | undefined> {
    const event = await this.deps.store.event(id);
    return event && { id, type: event.type, json: event, slack: digestSlack(event) };
  }
}
