// Readiness reports uploaded before the evaluator cleaned its remote's URL (issue #20) may name a git
// credential ("https://x-access-token:…@github.com/…"), a query or a fragment, or the developer's disk
// ("file:///home/…" for a repository without a remote), and every member of the organization reads them.
// Each stored repoUrl the upload route would now refuse is rewritten: to the URL without userinfo, query
// and fragment (common/repo-id.ts, as the evaluator sends it), or, for a local path or anything else that
// is not a URL, to "local:" and the report's stored repository id, so the reports of one repository still
// list together. The repository id itself stays: it never depended on userinfo, query or fragment.
import { LOCAL_REPO_PREFIX, repoUrlProblem, shareableRepoUrl } from '../../repo-id.ts';
import type { Db } from '../duckdb.ts';

const REPORTS = `SELECT org_id, report_id, repo_id, json_extract_string(report, '$.repoUrl') AS repo_url FROM readiness_reports`;
const SET_REPO_URL = `UPDATE readiness_reports SET report = json_merge_patch(report, json_object('repoUrl', $url))
                      WHERE org_id = $org AND report_id = $id`;

/** Pure: the repoUrl a stored report keeps (the same one when it is clean). */
export function cleanedRepoUrl(url: string, repoId: string): string {
  if (repoUrlProblem(url) === undefined) return url;
  const shareable = shareableRepoUrl(url);
  if (shareable !== undefined && repoUrlProblem(shareable) === undefined) return shareable;
  return `${LOCAL_REPO_PREFIX}${repoId.replace(/^repo_/, '')}`;
}

export async function up(tx: Db): Promise<void> {
  const rows = await tx.all<{ org_id: string; report_id: string; repo_id: string; repo_url: string | null }>(REPORTS);
  for (const row of rows) {
    const url = cleanedRepoUrl(row.repo_url ?? '', row.repo_id);
    if (url !== row.repo_url) await tx.run(SET_REPO_URL, { org: row.org_id, id: row.report_id, url });
  }
}
