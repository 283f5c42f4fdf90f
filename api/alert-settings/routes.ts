// The anomaly and digest settings (docs/metrics.md §9): GET /api/v0/organization/alert-settings (owners and
// managers) and PATCH (owners): the anomaly floor, and the destinations of anomalies and of the Monday
// digest, checked by the address guard as a budget's are. A change is acted on at once: an anomaly the new
// floor lets through, or a digest that is due, fires now rather than at the next record or tick.
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../common/errors.ts';
import { HISTORY_DAYS, MIN_DAYS_WITH_USAGE, MULTIPLE } from '../anomalies/figures.ts';
import { ADMIN_ROLES, OWNERS } from '../auth/principal.ts';
import type { AlertEngine } from '../budgets/alerts.ts';
import { keptDestinations } from '../budgets/destination.ts';
import { storedDestinationView } from '../budgets/sealed-destinations.ts';
import { nextDigest } from '../digest/figures.ts';
import type { DigestStore } from '../digest/store.ts';
import { declareRoute } from '../openapi/declare.ts';
import { ALERT_SETTINGS_PATH, AlertSettingsPatch, AlertSettingsView } from './schema.ts';
import type { AlertSettings, AlertSettingsStore } from './store.ts';

export interface AlertSettingsDeps {
  settings: AlertSettingsStore;
  digests: DigestStore;
  alerts: AlertEngine;
  now: () => number;
}

export function registerAlertSettingsRoutes(app: FastifyInstance, deps: AlertSettingsDeps): void {
  const answer = async (orgId: string, s: AlertSettings): Promise<AlertSettingsView> => {
    const now = deps.now();
    const next = s.digestDestinations.length ? nextDigest(now, await deps.digests.dueSent(orgId, now, s.digestSince)) : undefined;
    return {
      anomalies: {
        floorUsd: s.anomalyFloorUsd,
        multiple: MULTIPLE,
        historyDays: HISTORY_DAYS,
        minDaysWithUsage: MIN_DAYS_WITH_USAGE,
        destinations: s.anomalyDestinations.map(storedDestinationView),
      },
      digest: { destinations: s.digestDestinations.map(storedDestinationView), next: next ? new Date(next.at).toISOString() : null },
    };
  };

  declareRoute(
    app,
    {
      method: 'GET',
      path: ALERT_SETTINGS_PATH,
      freshness: 'setting',
      tag: 'Budgets',
      summary: 'The anomaly floor and where anomaly alerts and the Monday digest go',
      description:
        'Webhook secrets are never answered (`secret: "set"`); a destination URL is shown as its scheme and host only (`https://hooks.slack.com/…`): its path and query often hold its secret. No settings yet: the defaults (a $20 floor, no destination).',
      action: 'Alert settings',
      access: { kind: 'user', roles: ADMIN_ROLES },
      responses: { 200: AlertSettingsView },
    },
    async ({ principal }) => answer(principal.orgId, await deps.settings.get(principal.orgId)),
  );

  declareRoute(
    app,
    {
      method: 'PATCH',
      path: ALERT_SETTINGS_PATH,
      tag: 'Budgets',
      summary: 'Set the anomaly floor, the anomaly destinations or the digest destinations',
      description:
        'What is left out is kept. An anomaly (a person’s or team’s dollars on a UTC day above 3 × their median day with usage of the 28 before, and above the floor; at least 7 such days) fires once per person or team and day; the digest goes out on Mondays at 09:00 UTC (or at the next tick after, once per week) with the week before. Destinations are as a budget’s: `webhook` POSTs the event (`cost.anomaly` or `digest.weekly`) signed with `X-Agentmeter-Signature-V1` and `X-Agentmeter-Event-Id`, `slack` POSTs `{"text", "blocks"}`; private, loopback and link-local addresses are refused (400) unless the server runs with `--allow-private-webhooks`. A webhook URL already set keeps its secret when given without one. Answers as GET.',
      action: 'Setting alerts',
      access: { kind: 'user', roles: OWNERS },
      body: AlertSettingsPatch,
      responses: { 200: AlertSettingsView },
    },
    async ({ principal, body }, request) => {
      const orgId = principal.orgId;
      const before = await deps.settings.get(orgId);
      const kept = async (
        given: Parameters<typeof keptDestinations>[0] | undefined,
        was: AlertSettings['anomalyDestinations'],
        at: string,
      ) => {
        if (given === undefined) return was;
        const seal = deps.settings.seal;
        try {
          const { kept, unopened } = seal.openToReplace(was, request.log);
          return seal.seal(await keptDestinations(given, kept, deps.alerts.allowPrivate, at, unopened));
        } catch (error) {
          throw badRequest((error as Error).message);
        }
      };
      const digestDestinations = await kept(body.digest?.destinations, before.digestDestinations, 'digest.destinations');
      const next = {
        anomalyFloorUsd: body.anomalies?.floorUsd ?? before.anomalyFloorUsd,
        anomalyDestinations: await kept(body.anomalies?.destinations, before.anomalyDestinations, 'anomalies.destinations'),
        digestDestinations,
        // Turned on now: the first digest is next Monday's, not the week before it was asked for.
        digestSince: digestDestinations.length === 0 ? null : (before.digestSince ?? deps.now()),
      };
      await deps.settings.put(orgId, next, principal.userId);
      request.log.info(
        {
          floorUsd: next.anomalyFloorUsd,
          anomalyDestinations: next.anomalyDestinations.length,
          digestDestinations: next.digestDestinations.length,
        },
        'alert settings changed',
      );
      deps.alerts.touch(orgId);
      return answer(orgId, await deps.settings.get(orgId));
    },
  );
}
