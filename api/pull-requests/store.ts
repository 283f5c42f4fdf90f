// Pull requests, the hosts' secrets and the deliveries taken (migration 080). A delivery is recorded in
// the same transaction as what it says, so a replay (the same delivery id) changes nothing, and a
// delivery older than the stored one (hosts retry out of order) leaves the newer fact in place.
import type { Db } from '../../common/db/duckdb.ts';
import type { CodeHost, PullRequestFact } from './payloads.ts';

const SQL = {
  setSecret: `INSERT OR REPLACE INTO codehost_secrets (org_id, host, secret_sealed, secret_hash, set_by, set_at)
              VALUES ($org, $host, $sealed, $hash, $by, now())`,
  removeSecret: 'DELETE FROM codehost_secrets WHERE org_id = $org AND host = $host',
  secret: 'SELECT secret_sealed, secret_hash FROM codehost_secrets WHERE org_id = $org AND host = $host',
  hosts: `SELECT host, set_by AS "setBy", strftime(set_at, '%Y-%m-%dT%H:%M:%S.%gZ') AS "setAt"
          FROM codehost_secrets WHERE org_id = $org ORDER BY host`,
  takeDelivery: `INSERT OR IGNORE INTO codehost_deliveries (org_id, host, delivery_id, received_at)
                 VALUES ($org, $host, $delivery, now())`,
  stored: 'SELECT updated_at FROM pull_requests WHERE org_id = $org AND repo = $repo AND number = $number',
  upsert: `INSERT OR REPLACE INTO pull_requests (org_id, repo, number, host, host_id, author, state, opened_at,
             merged_at, updated_at, merge_commit_id, squash_commit_id, head_commit_id, commit_count)
           VALUES ($org, $repo, $number, $host, $hostId, $author, $state, CAST($openedAt AS TIMESTAMP),
             CAST($mergedAt AS TIMESTAMP), CAST($updatedAt AS TIMESTAMP), $merge, $squash, $head, $count)`,
} as const;

export interface StoredSecret {
  sealed: string | null;
  hash: string | null;
}

export interface CodeHostView {
  host: CodeHost;
  setBy: string;
  setAt: string;
}

export class PullRequestStore {
  constructor(private readonly db: Db) {}

  async setSecret(orgId: string, host: CodeHost, secret: StoredSecret, setBy: string): Promise<void> {
    await this.db.run(SQL.setSecret, { org: orgId, host, sealed: secret.sealed, hash: secret.hash, by: setBy });
  }

  async removeSecret(orgId: string, host: CodeHost): Promise<boolean> {
    return (await this.db.run(SQL.removeSecret, { org: orgId, host })) > 0;
  }

  async secret(orgId: string, host: CodeHost): Promise<StoredSecret | undefined> {
    const [row] = await this.db.all<{ secret_sealed: string | null; secret_hash: string | null }>(SQL.secret, { org: orgId, host });
    return row ? { sealed: row.secret_sealed, hash: row.secret_hash } : undefined;
  }

  hosts(orgId: string): Promise<CodeHostView[]> {
    return this.db.all<CodeHostView & Record<string, unknown>>(SQL.hosts, { org: orgId });
  }

  /**
   * Takes one delivery: false when its id was taken before (a replay). The fact, when there is one, is
   * stored unless a newer one of the same pull request is.
   */
  take(orgId: string, host: CodeHost, deliveryId: string, fact: PullRequestFact | undefined): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      if ((await tx.run(SQL.takeDelivery, { org: orgId, host, delivery: deliveryId })) === 0) return false;
      if (!fact) return true;
      const [stored] = await tx.all<{ updated_at: string }>(SQL.stored, { org: orgId, repo: fact.repo, number: fact.number });
      if (stored && new Date(stored.updated_at).getTime() > fact.updatedAt.getTime()) return true;
      await tx.run(SQL.upsert, {
        org: orgId,
        repo: fact.repo,
        number: fact.number,
        host: fact.host,
        hostId: fact.hostId,
        author: fact.author,
        state: fact.state,
        openedAt: fact.openedAt.toISOString(),
        mergedAt: fact.mergedAt?.toISOString() ?? null,
        updatedAt: fact.updatedAt.toISOString(),
        merge: fact.mergeCommitId,
        squash: fact.squashCommitId,
        head: fact.headCommitId,
        count: fact.commitCount,
      });
      return true;
    });
  }
}
