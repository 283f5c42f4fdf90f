// Alert destinations stored in clear before they were sealed at rest: every budget's and alert setting's
// destination becomes {type, origin, url, secret?} with its URL and webhook secret sealed under the
// database's key (common/sealing.ts, `<database>.oidc-key`, created here if the database has none yet and
// there is something to seal), and every queued or past delivery's url and secret are sealed the same way.
// The format is the one api/budgets/sealed-destinations.ts reads. What is already sealed is left as it is,
// so that a second run (the migration's record lost, or rows written in clear by an older server after it
// ran) seals only what is in clear.
import { isSealed, seal, secretKey } from '../../sealing.ts';
import type { Db } from '../duckdb.ts';

interface ClearDestination {
  type: 'webhook' | 'slack';
  url: string;
  secret?: string;
}
interface SealedDestination extends ClearDestination {
  origin: string;
}

/** Pure: a destination stored sealed (api/budgets/sealed-destinations.ts's StoredDestination). */
const sealedAlready = (d: ClearDestination | SealedDestination): d is SealedDestination => 'origin' in d && isSealed(d.url);

const SQL = {
  budgets: `SELECT org_id, scope, target, CAST(destinations AS VARCHAR) AS destinations FROM budgets
            WHERE json_array_length(destinations) > 0`,
  setBudget: 'UPDATE budgets SET destinations = CAST($destinations AS JSON) WHERE org_id = $org AND scope = $scope AND target = $target',
  settings: `SELECT org_id, CAST(anomaly_destinations AS VARCHAR) AS anomalies, CAST(digest_destinations AS VARCHAR) AS digest
             FROM alert_settings WHERE json_array_length(anomaly_destinations) + json_array_length(digest_destinations) > 0`,
  setSettings: `UPDATE alert_settings SET anomaly_destinations = CAST($anomalies AS JSON), digest_destinations = CAST($digest AS JSON)
                WHERE org_id = $org`,
  deliveries: 'SELECT alert_id, position, url, secret FROM alert_deliveries',
  setDelivery: 'UPDATE alert_deliveries SET url = $url, secret = $secret WHERE alert_id = $alert AND position = $position',
} as const;

/** Pure: a URL's origin, or 'invalid' for one that does not parse (stored before the checks; never sent). */
const originOf = (url: string): string => (URL.canParse(url) ? new URL(url).origin : 'invalid');

export async function up(tx: Db): Promise<void> {
  const budgets = await tx.all<{ org_id: string; scope: string; target: string; destinations: string }>(SQL.budgets);
  const settings = await tx.all<{ org_id: string; anomalies: string; digest: string }>(SQL.settings);
  const deliveries = (await tx.all<{ alert_id: string; position: number; url: string; secret: string | null }>(SQL.deliveries)).filter(
    (d) => !isSealed(d.url),
  );
  if (budgets.length + settings.length + deliveries.length === 0) return;
  const key = secretKey(tx.path, true)!;
  const sealAll = (json: string) =>
    JSON.stringify(
      (JSON.parse(json) as (ClearDestination | SealedDestination)[]).map((d) =>
        sealedAlready(d)
          ? d
          : {
              type: d.type,
              origin: originOf(d.url),
              url: seal(key, d.url),
              ...(d.secret ? { secret: seal(key, d.secret) } : {}),
            },
      ),
    );
  for (const b of budgets)
    await tx.run(SQL.setBudget, { org: b.org_id, scope: b.scope, target: b.target, destinations: sealAll(b.destinations) });
  for (const s of settings) await tx.run(SQL.setSettings, { org: s.org_id, anomalies: sealAll(s.anomalies), digest: sealAll(s.digest) });
  for (const d of deliveries)
    await tx.run(SQL.setDelivery, {
      alert: d.alert_id,
      position: d.position,
      url: seal(key, d.url),
      secret: d.secret === null ? null : seal(key, d.secret),
    });
}
