// The code hosts' pull request events, reduced to the facts docs/metrics.md §10 keeps. The schemas read
// only those fields (zod drops every other key), so a title, a body or a branch name never gets past this
// module. A delivery that is not a pull request event, or lacks what a pull request needs, is dropped with
// its reason (the route answers 202 and says why).
import { z } from 'zod';
import { normalizeRepoUrl, repoNameProblem, repoUrlProblem } from '../../common/repo-id.ts';
import { drop, ok, type StepResult } from '../../common/result.ts';

export type CodeHost = 'github' | 'gitlab';
export const CODE_HOSTS = ['github', 'gitlab'] as const satisfies readonly CodeHost[];

/** A pull request as stored: what one delivery says of it. */
export interface PullRequestFact {
  repo: string;
  number: number;
  host: CodeHost;
  hostId: string;
  /** The author's address: GitHub's no-reply address of the account, GitLab's head commit author. */
  author: string | null;
  state: 'open' | 'closed' | 'merged';
  openedAt: Date;
  mergedAt: Date | null;
  /** The delivery's own time: a later one replaces an earlier one, never the other way round. */
  updatedAt: Date;
  mergeCommitId: string | null;
  squashCommitId: string | null;
  headCommitId: string | null;
  /** How many commits the pull request had (GitHub says; GitLab does not). */
  commitCount: number | null;
  /**
   * true: mergedAt is only this delivery's time, not its merge's (GitLab's event of a later change of a
   * merged request: a label, the title); a merge time stored before is kept.
   */
  mergedAtGuessed?: boolean;
}

/**
 * Pure: the repository a delivery names by its web URL (`field`), under the rules readiness reports apply
 * to a URL (no file: URL or local path, no credential, query or fragment) and landed commits to a name (no
 * control character, at most 512 characters), or why it is dropped. A name they refuse could never match
 * a landed commit's, and could not be read back from the pull request list's cursor.
 */
function repository(url: string, field: string): StepResult<string> {
  const repo = normalizeRepoUrl(url);
  const problem = repoUrlProblem(url) ?? repoNameProblem(repo);
  return problem ? drop(`not a repository agentmeter keeps: ${field} ${problem}`) : ok(repo);
}

const sha = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/);
/** The last moment a time is kept: an ISO-8601 time past year 9999 is one the database cannot read. */
const LAST_TIME = Date.parse('9999-12-31T23:59:59.999Z');
const time = z.string().transform((s, ctx) => {
  // GitLab writes "2013-12-03 17:23:34 UTC" in some events and ISO-8601 in others.
  const d = new Date(s.replace(/^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d) UTC$/, '$1T$2Z'));
  if (Number.isNaN(d.getTime()) || d.getTime() > LAST_TIME) {
    ctx.addIssue({ code: 'custom', message: `not a time: ${s.slice(0, 40)}` });
    return z.NEVER;
  }
  return d;
});
const EMAIL = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;
const address = (value: string | null | undefined) => {
  const v = value?.trim().toLowerCase();
  return v && EMAIL.test(v) && v.length <= 320 ? v : null;
};

const GithubPullRequestEvent = z.object({
  action: z.string(),
  pull_request: z.object({
    id: z.number().int(),
    number: z.number().int().positive(),
    user: z.object({ login: z.string().regex(/^[A-Za-z0-9-]{1,39}(\[bot\])?$/), id: z.number().int() }).nullable(),
    created_at: time,
    updated_at: time,
    merged: z.boolean().nullish(),
    merged_at: time.nullable(),
    state: z.enum(['open', 'closed']),
    merge_commit_sha: sha.nullable(),
    head: z.object({ sha }),
    /** The branch it merges into (read, never stored). */
    base: z.object({ ref: z.string() }).optional(),
    /** At most what the database's INTEGER holds (GitHub's counts are far below). */
    commits: z.number().int().nonnegative().max(2_147_483_647).optional(),
  }),
  repository: z.object({ html_url: z.string().url(), default_branch: z.string().optional() }),
});

/**
 * Pure: whether a pull request merges into its repository's default branch (§10: it is linked to the
 * commits it brought there). A stacked pull request merges into another's branch: its commits reach the
 * default branch with that one, and counting both would count their lines and cost twice. Either branch
 * unknown (a payload without them): as before, the default.
 */
export const mergesIntoDefault = (base: string | null | undefined, defaultBranch: string | null | undefined) =>
  !base || !defaultBranch || base === defaultBranch;

/**
 * GitHub's no-reply address of an account (`<id>+<login>@users.noreply.github.com`): the address the
 * commits of a person who keeps their e-mail private carry, and an alias a person can be given (§5).
 */
export const githubNoReplyAddress = (user: { id: number; login: string }) =>
  `${user.id}+${user.login.toLowerCase()}@users.noreply.github.com`;

/** Pure: a GitHub delivery (X-GitHub-Event `event`) as a pull request fact. */
export function githubPullRequest(event: string, body: unknown): StepResult<PullRequestFact> {
  if (event === 'ping') return drop('a ping: the webhook reaches agentmeter');
  if (event !== 'pull_request') return drop(`event ${event.slice(0, 40)} is not kept (only pull_request)`);
  const parsed = GithubPullRequestEvent.safeParse(body);
  if (!parsed.success) return drop(`not a pull_request event agentmeter can read: ${parsed.error.issues[0]?.path.join('.')}`);
  const repo = repository(parsed.data.repository.html_url, 'repository.html_url');
  if (repo.kind !== 'ok') return repo;
  const pr = parsed.data.pull_request;
  // Merged into another branch than the default: closed without reaching it (mergesIntoDefault).
  const merged = pr.merged_at !== null && mergesIntoDefault(pr.base?.ref, parsed.data.repository.default_branch);
  return ok({
    repo: repo.value,
    number: pr.number,
    host: 'github',
    hostId: String(pr.id),
    author: pr.user ? githubNoReplyAddress(pr.user) : null,
    state: merged ? 'merged' : pr.state,
    openedAt: pr.created_at,
    mergedAt: merged ? pr.merged_at : null,
    updatedAt: pr.updated_at,
    mergeCommitId: merged ? pr.merge_commit_sha : null,
    squashCommitId: null,
    headCommitId: pr.head.sha,
    commitCount: pr.commits ?? null,
  });
}

const GitlabMergeRequestEvent = z.object({
  object_kind: z.literal('merge_request'),
  project: z.object({ web_url: z.string().url(), default_branch: z.string().nullish() }),
  object_attributes: z.object({
    id: z.number().int(),
    iid: z.number().int().positive(),
    state: z.string(),
    /** The branch it merges into (read, never stored). */
    target_branch: z.string().nullish(),
    action: z.string().optional(),
    created_at: time,
    updated_at: time,
    merge_commit_sha: sha.nullish(),
    squash_commit_sha: sha.nullish(),
    last_commit: z.object({ id: sha, author: z.object({ email: z.string().nullish() }).optional() }).nullish(),
  }),
});

/** Pure: a GitLab delivery (X-Gitlab-Event `event`) as a pull request fact. */
export function gitlabMergeRequest(event: string, body: unknown): StepResult<PullRequestFact> {
  if (event !== 'Merge Request Hook') return drop(`event ${event.slice(0, 40)} is not kept (only Merge Request Hook)`);
  const parsed = GitlabMergeRequestEvent.safeParse(body);
  if (!parsed.success) return drop(`not a merge request event agentmeter can read: ${parsed.error.issues[0]?.path.join('.')}`);
  const repo = repository(parsed.data.project.web_url, 'project.web_url');
  if (repo.kind !== 'ok') return repo;
  const mr = parsed.data.object_attributes;
  // Merged into another branch than the default: closed without reaching it (mergesIntoDefault).
  const merged = mr.state === 'merged' && mergesIntoDefault(mr.target_branch, parsed.data.project.default_branch);
  // GitLab's event has no merge time of its own: the merge event's updated_at is the moment it merged;
  // an event of a later change of the merged request (action update) says only when that change was.
  return ok({
    repo: repo.value,
    number: mr.iid,
    host: 'gitlab',
    hostId: String(mr.id),
    author: address(mr.last_commit?.author?.email),
    state: merged ? 'merged' : mr.state === 'opened' ? 'open' : 'closed',
    openedAt: mr.created_at,
    mergedAt: merged ? mr.updated_at : null,
    updatedAt: mr.updated_at,
    mergeCommitId: merged ? (mr.merge_commit_sha ?? null) : null,
    squashCommitId: merged ? (mr.squash_commit_sha ?? null) : null,
    headCommitId: mr.last_commit?.id ?? null,
    commitCount: null,
    ...(merged && mr.action !== 'merge' ? { mergedAtGuessed: true } : {}),
  });
}
