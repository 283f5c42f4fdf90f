// Anomaly alerts (docs/metrics.md §9) as a check of the alert engine (api/budgets/alerts.ts): after records
// reach an organization, each person's and each team's dollars of today (so far) and of yesterday (usage
// can arrive late) are compared with their 28 days before, and each anomaly found is stored once, with its
// deliveries to the destinations the organization chose for anomalies. The days come from the live figures
// (this month, today included) and the batch's days before the month, as the forecast reads them.
// While records keep arriving, an organization is compared at most every `intervalMs` (each comparison
// builds its live figures): a check asked for sooner is deferred to the end of the interval, never lost.
import type { Db } from '../../common/db/duckdb.ts';
import type { Logger } from '../../common/logger.ts';
import type { AlertSettingsStore } from '../alert-settings/store.ts';
import type { AlertCheck, AlertMessage } from '../budgets/alerts.ts';
import { daysBefore } from '../forecast/store.ts';
import type { TeamAnalytics } from '../teams/analytics.ts';
import { addDays } from '../teams/figures.ts';
import type { LiveFiguresStore } from '../today/store.ts';
import { anomalies, byUser, HISTORY_DAYS, teamDays, type UserDayCost } from './figures.ts';
import { anomalySlack } from './messages.ts';
import { ANOMALY_PREFIX, type AnomalyStore } from './store.ts';

export class AnomalyCheck implements AlertCheck {
  readonly prefix = ANOMALY_PREFIX;
  readonly onTick = false;
  /** When each organization was last compared (wall clock), and the deferred checks. */
  private readonly last = new Map<string, number>();
  private readonly deferred = new Map<string, NodeJS.Timeout>();
  private wake: ((orgId: string) => void) | undefined;

  constructor(
    private readonly deps: {
      db: Db;
      store: AnomalyStore;
      settings: AlertSettingsStore;
      live: LiveFiguresStore;
      teams: TeamAnalytics;
      log: Logger;
      /** The analytics clock: fired_at (the days come from the live figures' own clock). */
      now: () => number;
      /** Compare an organization at most this often (ms); 0: every time. */
      intervalMs: number;
    },
  ) {}

  attach(wake: (orgId: string) => void): void {
    this.wake = wake;
  }

  close(): void {
    for (const t of this.deferred.values()) clearTimeout(t);
    this.deferred.clear();
  }

  /** Whether to compare now; if not, a comparison is deferred to the end of the interval. */
  private due(orgId: string): boolean {
    const wall = Date.now();
    const last = this.last.get(orgId);
    if (last === undefined || wall - last >= this.deps.intervalMs) {
      this.last.set(orgId, wall);
      return true;
    }
    if (!this.deferred.has(orgId)) {
      const timer = setTimeout(
        () => {
          this.deferred.delete(orgId);
          this.wake?.(orgId);
        },
        this.deps.intervalMs - (wall - last),
      );
      timer.unref();
      this.deferred.set(orgId, timer);
    }
    return false;
  }

  /** At start: the organizations with usage since yesterday. */
  orgs(): Promise<string[]> {
    const today = new Date(this.deps.now()).toISOString().slice(0, 10);
    return this.deps.store.orgsWithUsageSince(addDays(today, -1));
  }

  /** Each user's dollars by day, yesterday's 28 days before it to today. */
  async days(orgId: string): Promise<{ today: string; rows: UserDayCost[] }> {
    const figures = await this.deps.live.figures({ orgId }, 'credits');
    const today = figures.date;
    const from = addDays(today, -1 - HISTORY_DAYS);
    const monthStart = figures.month.start;
    const older = from < monthStart ? await daysBefore(this.deps.db, orgId, from, addDays(monthStart, -1), figures.earlier) : [];
    return { today, rows: [...older, ...figures.month.byUserDay].map((r) => ({ user_id: r.user_id, day: r.day, usd: r.usd })) };
  }

  async check(orgId: string): Promise<number> {
    if (!this.due(orgId)) return 0;
    const { store, settings, teams, log } = this.deps;
    const [{ today, rows }, chosen] = await Promise.all([this.days(orgId), settings.get(orgId)]);
    const lookAt = [addDays(today, -1), today];
    const floor = chosen.anomalyFloorUsd;
    const found: {
      scope: 'user' | 'team';
      target: string;
      subject: string;
      day: string;
      cost: number;
      median: number;
      daysWithUsage: number;
    }[] = [];
    const users = byUser(rows);
    const emails = users.size ? await store.emails(orgId) : new Map<string, string>();
    for (const [user, days] of users)
      for (const a of anomalies(days, lookAt, floor)) found.push({ scope: 'user', target: user, subject: emails.get(user) ?? user, ...a });
    const { teams: list, minSize } = await teams.teamsAndMinSize(orgId);
    if (list.length) {
      const membersOf = await teams.membersOfTeams(orgId);
      for (const team of list) {
        const members = membersOf(team.key);
        if (!members) continue;
        for (const a of anomalies(teamDays(rows, members, minSize), lookAt, floor))
          found.push({ scope: 'team', target: team.key, subject: team.name, ...a });
      }
    }
    let fired = 0;
    for (const a of found) {
      const id = await store.fire(
        {
          org_id: orgId,
          scope: a.scope,
          target: a.target,
          subject: a.subject,
          day: a.day,
          cost_usd: a.cost,
          median_usd: a.median,
          floor_usd: floor,
          days_with_usage: a.daysWithUsage,
          fired_at: new Date(this.deps.now()).toISOString(),
        },
        chosen.anomalyDestinations,
      );
      if (!id) continue;
      fired++;
      log.info(
        {
          alert: id,
          org: orgId,
          scope: a.scope,
          day: a.day,
          costUsd: a.cost,
          medianUsd: a.median,
          floorUsd: floor,
          destinations: chosen.anomalyDestinations.length,
        },
        'cost anomaly fired',
      );
    }
    return fired;
  }

  async message(id: string): Promise<AlertMessage | undefined> {
    const event = await this.deps.store.event(id);
    return event && { id, type: event.type, json: event, slack: anomalySlack(event) };
  }
}
