// Alert destinations at rest (budgets, anomaly and digest settings, queued deliveries): a URL and a
// webhook's signing secret are sealed under the database's key (common/sealing.ts), since a webhook URL's
// path or query often is its secret (Slack's, Discord's) and the signing secret is what a receiver trusts.
// Only the URL's origin is kept in clear, for showing (shownUrl). They are opened only to send a delivery
// and when an owner replaces destinations (to match a URL put back as shown with the one it stands for).
import { KEY_FILE_SUFFIX, seal, secretKey, unseal } from '../../common/sealing.ts';
import type { KeptDestination } from './destination.ts';

/** A destination as stored: its origin in clear; its URL and a webhook's secret sealed. */
export interface StoredDestination {
  type: 'webhook' | 'slack';
  /** The URL's scheme, host and port: all that is ever shown of it. */
  origin: string;
  /** Sealed. */
  url: string;
  /** Sealed; a webhook's only. */
  secret?: string;
}

/** Pure: how a stored destination is answered: its origin and a fixed mask, a secret only as "set". */
export const storedDestinationView = (d: StoredDestination) => ({
  type: d.type,
  url: `${d.origin}/…`,
  ...(d.secret ? { secret: 'set' as const } : {}),
});

/** Seals and opens the destinations of the database at `dbPath`. */
export class DestinationSeal {
  constructor(private readonly dbPath: string) {}

  seal(destinations: readonly KeptDestination[]): StoredDestination[] {
    if (destinations.length === 0) return [];
    const key = secretKey(this.dbPath, true)!;
    return destinations.map((d) => ({
      type: d.type,
      origin: new URL(d.url).origin,
      url: seal(key, d.url),
      ...(d.secret ? { secret: seal(key, d.secret) } : {}),
    }));
  }

  /** The destinations in clear; throws an Error saying why when they cannot be opened. */
  open(destinations: readonly StoredDestination[]): KeptDestination[] {
    if (destinations.length === 0) return [];
    return destinations.map((d) => {
      const opened = this.openDelivery({ url: d.url, secret: d.secret ?? null });
      return { type: d.type, url: opened.url, ...(opened.secret ? { secret: opened.secret } : {}) };
    });
  }

  /**
   * The destinations an owner replaces, in clear. When they cannot be opened (the key file lost or
   * replaced) none are kept, `unopened` says why (it is logged too), and the owner gives them in full again.
   */
  openToReplace(
    destinations: readonly StoredDestination[],
    log: { warn(o: object, msg: string): void },
  ): { kept: KeptDestination[]; unopened?: string } {
    try {
      return { kept: this.open(destinations) };
    } catch (error) {
      const unopened = (error as Error).message;
      log.warn({ error: unopened }, 'stored alert destinations cannot be opened; they are replaced as given');
      return { kept: [], unopened };
    }
  }

  /** A queued delivery's URL and secret in clear, at its send; throws an Error saying why when they cannot be. */
  openDelivery(d: { url: string; secret: string | null }): { url: string; secret: string | null } {
    const key = secretKey(this.dbPath, false);
    // Named by its place beside the database, not its path: a delivery's error is shown to managers.
    if (!key) throw new Error(`the key file beside the database (${KEY_FILE_SUFFIX}) is missing: set the alert destinations again`);
    try {
      return { url: unseal(key, d.url), secret: d.secret === null ? null : unseal(key, d.secret) };
    } catch {
      throw new Error(
        `a destination cannot be opened with the key file beside the database (${KEY_FILE_SUFFIX}; another key sealed it): set the alert destinations again`,
      );
    }
  }
}
