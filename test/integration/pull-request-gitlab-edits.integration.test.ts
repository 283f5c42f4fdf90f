// A merge request edited after its merge (docs/metrics.md §10). GitLab's merge request event carries no
// merge time of its own: the merge event's updated_at is the moment it merged. GitLab sends the event
// again for every later change of the merged request (a label, the title: action "update", state still
// "merged"), each with a later updated_at, which is not when it merged.
//
// Hand-worked: !7 opened 2026-11-03 09:30, merged 11:30 (2 h), its label changed 2026-11-04 08:00. It stays
// merged on 2026-11-03 after 2 h: 11-03 merged 1, median 2 h; 11-04 merged 0. !8, the same, but GitLab
// retried its merge event after the label's: merged on 11-03 after 2 h too (11-03 merged 2).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PullRequestScene, pullRequestScene } from '../helpers/pull-requests.ts';

const TOKEN = 'gitlab-webhook-token-0123';
let scene: PullRequestScene;

function event(action: string, updatedAt: string, iid = 7) {
  const body = JSON.parse(readFileSync(join(import.meta.dirname, '..', 'fixtures', 'codehost', 'gitlab-merge_request.json'), 'utf8'));
  body.project.web_url = 'https://gitlab.com/acme/api';
  Object.assign(body.object_attributes, {
    iid,
    id: 7000 + iid,
    state: 'merged',
    action,
    created_at: '2026-11-03T09:30:00Z',
    updated_at: updatedAt,
    merge_commit_sha: null,
    squash_commit_sha: null,
  });
  return JSON.stringify(body);
}

beforeAll(async () => {
  scene = await pullRequestScene({ developers: [], gitlab: TOKEN, price: false });
});
afterAll(async () => scene.server.close());

describe('a merged merge request changed later', () => {
  it('keeps the time of its merge event, not the time of the later change', async () => {
    await scene.deliverGitlab(event('merge', '2026-11-03T11:30:00Z'), 'g-merge');
    await scene.deliverGitlab(event('update', '2026-11-04T08:00:00Z'), 'g-label');
    const body = await scene.get('/api/v1/analytics/pull_requests?startDate=2026-11-03&endDate=2026-11-04');
    expect(body.data.map((d: Record<string, unknown>) => [d['date'], d['merged'], d['median_hours_to_merge']])).toEqual([
      ['2026-11-03', 1, 2],
      ['2026-11-04', 0, null],
    ]);
  });

  it('takes the time of a merge event that arrives after the later change', async () => {
    await scene.deliverGitlab(event('update', '2026-11-04T08:00:00Z', 8), 'g8-label');
    await scene.deliverGitlab(event('merge', '2026-11-03T11:30:00Z', 8), 'g8-merge');
    const body = await scene.get('/api/v1/analytics/pull_requests?startDate=2026-11-03&endDate=2026-11-04');
    expect(body.data.map((d: Record<string, unknown>) => [d['date'], d['merged'], d['median_hours_to_merge']])).toEqual([
      ['2026-11-03', 2, 2],
      ['2026-11-04', 0, null],
    ]);
  });
});
