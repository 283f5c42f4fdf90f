// Pull requests stored before the webhooks applied the repository name rules (common/repo-id.ts
// repoNameProblem): a signed delivery naming "file:///etc/passwd" was stored as the repository
// "/etc/passwd", and one longer than 512 characters could not be named by the list's cursor. Such a pull
// request can match no landed commit (their names follow the rules), so it only added an empty merged
// pull request to the figures: each is deleted (a later delivery of it is now dropped with its reason).
import { repoNameProblem } from '../../repo-id.ts';
import type { Db } from '../duckdb.ts';

const REPOS = 'SELECT DISTINCT org_id, repo FROM pull_requests';
const DELETE = 'DELETE FROM pull_requests WHERE org_id = $org AND repo = $repo';

export async function up(tx: Db): Promise<void> {
  for (const row of await tx.all<{ org_id: string; repo: string }>(REPOS))
    if (repoNameProblem(row.repo) !== undefined) await tx.run(DELETE, { org: row.org_id, repo: row.repo });
}
