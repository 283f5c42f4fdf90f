// What each change of the stored data makes stale: the one table (STALE), and the one call every writer
// makes (Changes.changed). Whatever holds something built from stored data (the answer cache's entries,
// the analytics read model, the live figures) says what it reads, as Sources; a change drops, for its
// organization (or every one), what reads a source the table names for it. A writer names what it
// changed, never what to clear: a new holder, or a new answer reading more, needs no writer edited.
//
// One source is not in the table: the roster (teams, memberships, the minimum team size). It changes
// through the roster upload, SCIM groups, OIDC sign-in and the CLI, each in a transaction that bumps the
// organization's teams revision (api/teams/store.ts), and that revision is part of the key of every
// answer restricted to or grouped by teams, or reading them whatever its query (api/answers/answer.ts,
// `roster`): a roster change is a new key.

/** What an answer or a holder is built from. */
export type Source =
  /** The daily aggregates the batch writes (agg_* tables). */
  | 'aggregates'
  /** Raw records as they arrive: events, usage, assistant messages, edit decisions, landed commits. */
  | 'events'
  /** Users' e-mails, which answers carry beside their ids. */
  | 'users'
  /** The organization's own prices (live figures price today's usage with them). */
  | 'prices'
  /** The pull requests the code hosts' webhooks delivered. */
  | 'pullRequests'
  /** The organization's budgets (the forecast and the budgets' usage name each one). */
  | 'budgets'
  /** The readiness reports uploaded. */
  | 'readiness'
  /** The credit limits and whether they are enforced. */
  | 'limits';

export const ALL_SOURCES: readonly Source[] = ['aggregates', 'events', 'users', 'prices', 'pullRequests', 'budgets', 'readiness', 'limits'];

/** What changed, for one organization or (no org) every one. */
export type Change =
  /** Ingest or OTLP stored records of the organization. */
  | { kind: 'events'; org: string }
  /** A batch run committed: every organization's days, or one organization's. */
  | { kind: 'batch'; org?: string | undefined }
  /** A user was added, removed, deactivated or renamed, or their other addresses changed (what rows name them by). */
  | { kind: 'user'; org: string }
  /** A code host's delivery changed a pull request. */
  | { kind: 'pullRequest'; org: string }
  /** An organization price was set or removed (its past days are then rebuilt by a batch: a 'batch' change). */
  | { kind: 'price'; org: string }
  /** An owner set, replaced or removed a budget. */
  | { kind: 'budget'; org: string }
  /** A readiness report was uploaded. */
  | { kind: 'readiness'; org: string }
  /** A credit limit was set, or enforcement turned on or off. */
  | { kind: 'limit'; org: string };

/** THE table: what each change makes stale. */
export const STALE: { readonly [K in Change['kind']]: readonly Source[] } = {
  events: ['events'],
  batch: ['aggregates'],
  user: ['users'],
  price: ['prices'],
  pullRequest: ['pullRequests'],
  budget: ['budgets'],
  readiness: ['readiness'],
  limit: ['limits'],
};

/** Something that keeps what it built from stored data until told it is stale. */
export interface Holder {
  /** What it is built from. */
  readonly reads: readonly Source[];
  /** Drops what reads one of `stale`: of one organization, or of every one (org undefined). */
  forget(org: string | undefined, stale: ReadonlySet<Source>): void;
}

/** The holders of a server, told of every change. */
export class Changes {
  constructor(private readonly holders: readonly Holder[]) {}

  changed(change: Change): void {
    const stale = new Set(STALE[change.kind]);
    for (const holder of this.holders) if (holder.reads.some((s) => stale.has(s))) holder.forget(change.org, stale);
  }
}
