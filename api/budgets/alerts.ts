// Budget alerts (docs/metrics.md §7): after records reach an organization, its budgets are compared with the
// month's credits from the live figures (api/today/), and every threshold newly reached fires an alert,
// stored with its pending deliveries before anything is sent. Deliveries are sent from the table, so a
// restart resumes them; each carries the alert id as its idempotency key (X-Agentmeter-Event-Id), and a
// webhook's body is signed with its secret. A failed send is retried with doubling delays, a bounded
// number of times, then kept as undelivered with its last error.
//
// The same engine runs the organization's other alerts (docs/metrics.md §9), given as checks: anomalies
// (api/anomalies/) are compared with budgets after records arrive, and the weekly digest (api/digest/) at
// every tick of a timer too. Each stores its alert and pending deliveries in its own table under an id
// prefix of its own, and tells the engine how to say it (a JSON body, a Slack body): one delivery queue,
// one signing, one address guard, one retry policy for all.
import type { Logger } from '../../common/logger.ts';
import { usd4 } from '../../common/money.ts';
import type { TeamAnalytics } from '../teams/analytics.ts';
import type { LiveFiguresStore, MonthCredits } from '../today/store.ts';
import { postJson, resolveDestination } from './destination.ts';
import { reachedThresholds, signature, slackBody, timestampedSignature } from './messages.ts';
import type { ThresholdEvent } from './schema.ts';
import { type BudgetStore, budgetLimit, type Delivery, type StoredBudget } from './store.ts';

export interface AlertOptions {
  /** Let destinations resolve to private and loopback addresses (serve --allow-private-webhooks). */
  allowPrivate?: boolean;
  /** Sends per delivery before it is kept as undelivered (default 6). */
  maxAttempts?: number;
  /** The first retry's delay; each next one doubles (default 2 s: 6 attempts span about a minute). */
  retryDelayMs?: number;
  /** How long one send waits for an answer (default 10 s). */
  timeoutMs?: number;
  /** How soon after records arrive their organization's budgets are compared (default 1 s). */
  settleMs?: number;
  /** How often the checks that depend on the time alone (the Monday digest) run (default 60 s). */
  tickMs?: number;
  /**
   * Anomalies are compared at most this often per organization while records keep arriving (default 60 s):
   * each comparison builds the organization's live figures, which budgets alone asked for before.
   */
  anomalyIntervalMs?: number;
}

/** What an alert says: the webhook's JSON body and the Slack body. */
export interface AlertMessage {
  id: string;
  /** The event type, for the log (budget.threshold, cost.anomaly, digest.weekly). */
  type: string;
  json: unknown;
  slack: unknown;
}

/**
 * One more kind of alert the engine fires and delivers. `prefix` starts its alerts' ids; `message` reads one
 * back to send it; `check` fires what is due for an organization (returns how many it stored); `orgs` are
 * the organizations to check at start and at each tick (`onTick`: checked at every tick, not only after
 * records arrive).
 */
export interface AlertCheck {
  prefix: string;
  onTick: boolean;
  orgs(): Promise<string[]>;
  check(orgId: string): Promise<number>;
  message(id: string): Promise<AlertMessage | undefined>;
  /** Given by the engine: asks for the organization to be checked again soon (a deferred check). */
  attach?(wake: (orgId: string) => void): void;
  /** The engine closes: drop any timer. */
  close?(): void;
}

/** Who a team counted on a day (the team and the teams below it), by the team's name in lower case. */
export type TeamMembers = (teamKey: string) => ((day: string) => ReadonlySet<string>) | undefined;

/**
 * What a budget counts this month, from the live figures, in its unit (credits, or dollars to 4 decimals):
 * the organization's, the user's, or each day's of the team's members that day (teams below it included,
 * as a team= filter does). Undefined for a budget whose user or team no longer exists.
 */
export function budgetUsage(
  budget: StoredBudget,
  month: Pick<MonthCredits, 'credits' | 'byUser' | 'byUserDay' | 'usd' | 'usdByUser'>,
  teams: TeamMembers,
): number | undefined {
  const dollars = budgetLimit(budget).unit === 'usd';
  const amount = (value: number) => (dollars ? (usd4(value) ?? 0) : value);
  if (budget.scope === 'org') return amount(dollars ? month.usd : month.credits);
  if (budget.scope === 'user')
    return budget.userId ? amount((dollars ? month.usdByUser : month.byUser).get(budget.userId) ?? 0) : undefined;
  const members = teams(budget.target);
  if (!members) return undefined;
  return amount(month.byUserDay.reduce((sum, r) => (members(r.day).has(r.user_id) ? sum + (dollars ? r.usd : r.credits) : sum), 0));
}

export const budgetObject = (b: StoredBudget): ThresholdEvent['budget'] => ({
  scope: b.scope,
  ...(b.team ? { team: b.team } : {}),
  ...(b.scope === 'user' && b.email ? { email: b.email } : {}),
  ...(b.monthlyUsd !== null ? { monthlyUsd: b.monthlyUsd } : { monthlyCredits: b.monthlyCredits ?? 0 }),
});

export class AlertEngine {
  private readonly pending = new Map<string, NodeJS.Timeout>();
  private readonly evaluating = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private readonly checks: AlertCheck[] = [];
  private starting: Promise<void> | undefined;
  private delivering: Promise<void> | undefined;
  private again = false;
  private closed = false;
  private readonly o: Required<AlertOptions>;

  constructor(
    private readonly store: BudgetStore,
    private readonly live: LiveFiguresStore,
    /** Team budgets: who each team counted on each day. */
    private readonly teams: TeamAnalytics,
    private readonly log: Logger,
    /** The analytics clock: the month, and fired_at. Delivery timing uses the wall clock. */
    private readonly now: () => number,
    options: AlertOptions = {},
  ) {
    this.o = {
      allowPrivate: false,
      maxAttempts: 6,
      retryDelayMs: 2_000,
      timeoutMs: 10_000,
      settleMs: 1_000,
      tickMs: 60_000,
      anomalyIntervalMs: 60_000,
      ...options,
    };
  }

  /** Adds a kind of alert (before start()). */
  add(check: AlertCheck): void {
    this.checks.push(check);
    check.attach?.((orgId) => this.touch(orgId));
  }

  /** The options as set (the checks read their own). */
  get options(): Readonly<Required<AlertOptions>> {
    return this.o;
  }

  get allowPrivate(): boolean {
    return this.o.allowPrivate;
  }

  /** At start: compare every organization's budgets, and resume the deliveries a stop left pending. */
  start(): Promise<void> {
    this.starting = (async () => {
      const orgs = new Set(await this.store.orgsWithBudgets());
      for (const check of this.checks) for (const org of await check.orgs()) orgs.add(org);
      for (const org of orgs) if (!this.closed) await this.evaluate(org);
      this.kick();
      this.armTick();
    })();
    return this.starting;
  }

  /** Runs the checks that depend on the time alone for their organizations (the Monday digest). */
  async tick(): Promise<void> {
    const orgs = new Set<string>();
    for (const check of this.checks.filter((c) => c.onTick)) for (const org of await check.orgs()) orgs.add(org);
    for (const org of orgs) if (!this.closed) await this.evaluate(org, true);
  }

  private armTick(): void {
    if (this.closed || !this.checks.some((c) => c.onTick)) return;
    this.ticker = setTimeout(() => {
      this.tick()
        .catch((error) => this.log.error({ err: error }, 'alerts: tick failed'))
        .finally(() => this.armTick());
    }, this.o.tickMs);
    this.ticker.unref();
  }

  /** Records reached the organization: compare its budgets shortly (several batches, one comparison). */
  touch(orgId: string): void {
    if (this.closed || this.pending.has(orgId)) return;
    const timer = setTimeout(() => {
      this.pending.delete(orgId);
      this.evaluate(orgId).catch((error) => this.log.error({ err: error, org: orgId }, 'budget alerts: comparing failed'));
    }, this.o.settleMs);
    timer.unref();
    this.pending.set(orgId, timer);
  }

  /**
   * Fires the alerts of every threshold the organization's budgets have newly reached, and what the other
   * checks find due (`tickOnly`: only the checks run at every tick).
   */
  evaluate(orgId: string, tickOnly = false): Promise<void> {
    const running = this.evaluating.get(orgId);
    const next = (running ?? Promise.resolve())
      .catch(() => undefined)
      .then(async () => {
        if (!tickOnly) await this.compare(orgId);
        let fired = 0;
        for (const check of this.checks) {
          if (this.closed) return;
          if (tickOnly && !check.onTick) continue;
          fired += await check.check(orgId).catch((error: unknown) => {
            this.log.error({ err: error, org: orgId, alerts: check.prefix }, 'alerts: a check failed');
            return 0;
          });
        }
        if (fired) this.kick();
      })
      .finally(() => {
        if (this.evaluating.get(orgId) === next) this.evaluating.delete(orgId);
      });
    this.evaluating.set(orgId, next);
    return next;
  }

  private async compare(orgId: string): Promise<void> {
    if (this.closed) return;
    const budgets = await this.store.list(orgId);
    if (budgets.length === 0) return;
    const [figures, teams] = await Promise.all([
      this.live.figures({ orgId }, 'credits'),
      budgets.some((b) => b.scope === 'team') ? this.teams.membersOfTeams(orgId) : () => undefined,
    ]);
    const month = figures.month.start.slice(0, 7);
    let fired = 0;
    for (const budget of budgets) {
      const usage = budgetUsage(budget, figures.month, teams);
      if (usage === undefined) continue;
      const { unit, limit } = budgetLimit(budget);
      for (const threshold of reachedThresholds(usage, limit, budget.thresholds)) {
        const id = await this.store.fire(budget, {
          org_id: orgId,
          budget: budgetObject(budget),
          threshold,
          unit,
          usage,
          limit,
          month,
          fired_at: new Date(this.now()).toISOString(),
        });
        if (id) {
          fired++;
          this.log.info(
            {
              alert: id,
              org: orgId,
              scope: budget.scope,
              ...(budget.team ? { team: budget.team } : {}),
              threshold,
              unit,
              usage,
              limit,
              month,
            },
            'budget alert fired',
          );
        }
      }
    }
    if (fired) this.kick();
  }

  /** Sends what is due now, then sleeps until the next retry. */
  kick(): void {
    if (this.closed) return;
    if (this.delivering) {
      this.again = true;
      return;
    }
    this.delivering = this.deliverDue()
      .catch((error) => this.log.error({ err: error }, 'budget alerts: delivering failed'))
      .finally(async () => {
        this.delivering = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        } else await this.sleep();
      });
  }

  /** Resolves when no send is in progress (tests). */
  async idle(): Promise<void> {
    await this.starting?.catch(() => undefined);
    while (this.delivering || this.evaluating.size) {
      await this.delivering;
      await Promise.all([...this.evaluating.values()]).catch(() => undefined);
    }
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.ticker) clearTimeout(this.ticker);
    for (const check of this.checks) check.close?.();
    for (const t of this.pending.values()) clearTimeout(t);
  }

  private async sleep(): Promise<void> {
    if (this.closed) return;
    const at = await this.store.nextDue().catch(() => undefined);
    if (this.timer) clearTimeout(this.timer);
    if (at === undefined) return;
    this.timer = setTimeout(() => this.kick(), Math.max(0, at - Date.now()));
    this.timer.unref();
  }

  private async deliverDue(): Promise<void> {
    for (const d of await this.store.due(Date.now())) {
      if (this.closed) return;
      await this.deliver(d);
    }
  }

  /** What an alert says, by its id's prefix: a budget's alert, or one of the checks'. */
  private async message(alertId: string): Promise<AlertMessage | undefined> {
    const check = this.checks.find((c) => alertId.startsWith(c.prefix));
    if (check) return check.message(alertId);
    const event = await this.store.event(alertId);
    return event && { id: event.id, type: event.type, json: event, slack: slackBody(event) };
  }

  private async deliver(d: Delivery): Promise<void> {
    const event = await this.message(d.alert_id);
    if (!event) return;
    const attempt = d.attempts + 1;
    let host = '?';
    let error: string | undefined;
    try {
      // Opened here only, for this send (sealed at rest: sealed-destinations.ts).
      const { url, secret } = this.store.seal.openDelivery(d);
      const to = await resolveDestination(url, this.o.allowPrivate);
      host = to.url.host;
      const body = JSON.stringify(d.kind === 'slack' ? event.slack : event.json);
      const headers: Record<string, string> = { 'x-agentmeter-event-id': event.id, 'user-agent': 'agentmeter-alerts' };
      if (d.kind === 'webhook' && secret) {
        headers['x-agentmeter-signature-v1'] = timestampedSignature(secret, body, Math.floor(Date.now() / 1000));
        headers['x-agentmeter-signature'] = signature(secret, body);
      }
      const result = await postJson(to, body, headers, this.o.timeoutMs);
      error = result.ok ? undefined : result.error;
    } catch (e) {
      error = (e as Error).message;
    }
    if (error === undefined) {
      await this.store.delivered(d, Date.now());
      this.log.info({ alert: d.alert_id, type: event.type, kind: d.kind, host, attempt }, 'alert delivered');
    } else if (attempt >= this.o.maxAttempts) {
      await this.store.giveUp(d, error);
      this.log.warn(
        { alert: d.alert_id, type: event.type, kind: d.kind, host, attempts: attempt, error },
        'alert undelivered: retries exhausted',
      );
    } else {
      const delay = this.o.retryDelayMs * 2 ** (attempt - 1);
      await this.store.retry(d, error, Date.now() + delay);
      this.log.warn(
        { alert: d.alert_id, type: event.type, kind: d.kind, host, attempt, retryInMs: delay, error },
        'alert send failed; will retry',
      );
    }
  }
}
