// Readiness reports per organization, newest first (createdAt, then reportId, both descending: a stable
// order, so paging with startAfter never skips or repeats a report, even while new ones arrive).
import type { Db } from '../../common/db/duckdb.ts';
import type { ReadinessReport } from '../../common/readiness.ts';

const SQL = {
  insert: 'INSERT INTO readiness_reports VALUES ($org, $id, $repo, $created, $user, $report)',
  exists: 'SELECT created_at FROM readiness_reports WHERE org_id = $org AND report_id = $id',
  page: `SELECT CAST(report AS VARCHAR) AS report FROM readiness_reports
         WHERE org_id = $org AND ($repo IS NULL OR repo_id = $repo)
           AND ($after_created IS NULL OR created_at < $after_created OR (created_at = $after_created AND report_id < $after_id))
         ORDER BY created_at DESC, report_id DESC
         LIMIT $limit`,
} as const;

export class ReadinessStore {
  constructor(private readonly db: Db) {}

  /** false when the org already has a report with this id. */
  async add(org: string, user: string, repo: string, report: ReadinessReport): Promise<boolean> {
    if ((await this.db.all(SQL.exists, { org, id: report.reportId })).length) return false;
    await this.db.run(SQL.insert, { org, id: report.reportId, repo, created: report.createdAt, user, report: JSON.stringify(report) });
    return true;
  }

  /** The position of a report in the order, for startAfter; undefined when the org has no such report. */
  async position(org: string, id: string): Promise<{ createdAt: number; id: string } | undefined> {
    const [row] = await this.db.all<{ created_at: number }>(SQL.exists, { org, id });
    return row ? { createdAt: row.created_at, id } : undefined;
  }

  async page(
    org: string,
    options: { repo?: string | undefined; after?: { createdAt: number; id: string } | undefined; limit: number },
  ): Promise<ReadinessReport[]> {
    const rows = await this.db.all<{ report: string }>(SQL.page, {
      org,
      repo: options.repo ?? null,
      after_created: options.after?.createdAt ?? null,
      after_id: options.after?.id ?? null,
      limit: options.limit,
    });
    return rows.map((r) => JSON.parse(r.report) as ReadinessReport);
  }
}
