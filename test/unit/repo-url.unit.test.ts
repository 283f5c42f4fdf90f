// What a readiness report may say about its repository (issue #20): the evaluator's shareable form of a
// remote, and the server's reasons to refuse one. Each case is a remote form git accepts.
import { describe, expect, it } from 'vitest';
import { cleanedRepoUrl } from '../../common/db/migrations/018_clean_readiness_repo_urls.ts';
import { repoId, repoIdentity, repoUrlProblem, shareableRepoUrl } from '../../common/repo-id.ts';

describe('shareableRepoUrl', () => {
  it.each([
    ['https://x-access-token:ghs_abc@github.com/acme/app.git', 'https://github.com/acme/app.git'],
    ['https://github.com/acme/app.git?ref=main#readme', 'https://github.com/acme/app.git'],
    ['ssh://git@gitlab.example.com:2222/acme/app.git', 'ssh://gitlab.example.com:2222/acme/app.git'],
    ['git@github.com:acme/app.git', 'github.com:acme/app.git'],
    ['  https://github.com/acme/app  ', 'https://github.com/acme/app'],
    ['file:///home/alice/src/app', undefined],
    ['/home/alice/src/app', undefined],
    ['../app', undefined],
    ['~/src/app', undefined],
    ['C:\\src\\app', undefined],
    ['', undefined],
  ])('%s → %s', (url, expected) => {
    expect(shareableRepoUrl(url)).toBe(expected);
    if (expected !== undefined) expect(repoUrlProblem(expected)).toBeUndefined();
  });
});

describe('repoUrlProblem', () => {
  it.each([
    ['https://github.com/acme/app.git', undefined],
    ['github.com:acme/app.git', undefined],
    ['local:0123456789abcdef0123456789abcdef01234567', undefined],
    ['local:no-commits', undefined],
    ['https://user:token@github.com/acme/app', /userinfo/],
    ['https://token@github.com/acme/app', /userinfo/],
    ['git@github.com:acme/app.git', /userinfo/],
    ['https://github.com/acme/app?x=1', /query or fragment/],
    ['https://github.com/acme/app#x', /query or fragment/],
    ['file:///home/alice/app', /local path/],
    ['FILE:/home/alice/app', /local path/],
    ['/home/alice/app', /local path/],
    ['local:/home/alice', /local:<id>/],
    ['just words', /must be a URL/],
  ])('%s', (url, expected) => {
    const problem = repoUrlProblem(url);
    if (expected === undefined) expect(problem).toBeUndefined();
    else expect(problem).toMatch(expected);
  });
});

describe("migration 018's rewrite", () => {
  it('keeps a clean URL, cleans a dirty one, and names a local path by its repository id', () => {
    expect(cleanedRepoUrl('https://github.com/a/b', 'repo_0123456789abcdef')).toBe('https://github.com/a/b');
    expect(cleanedRepoUrl('https://u:p@github.com/a/b?q#f', 'repo_0123456789abcdef')).toBe('https://github.com/a/b');
    expect(cleanedRepoUrl('file:///home/u/x', 'repo_0123456789abcdef')).toBe('local:0123456789abcdef');
    expect(cleanedRepoUrl('x', 'repo_0123456789abcdef')).toBe('local:0123456789abcdef');
  });
});

describe('repoIdentity: what landed commits and edits ship', () => {
  it('names a hosted remote by host/path without its credential, a local one by local:<id>, never its path', () => {
    expect(repoIdentity('https://dev:tok@GitHub.com/Acme/App.git')).toEqual({
      repoId: repoId('git@github.com:acme/app'),
      repo: 'github.com/acme/app',
    });
    for (const local of ['/home/alice/src/app.git', 'file:///home/alice/app', '../app', 'C:\\work\\app']) {
      const identity = repoIdentity(local);
      expect(identity.repo).toBe(`local:${identity.repoId.slice('repo_'.length)}`);
      expect(repoUrlProblem(identity.repo)).toBeUndefined();
      expect(identity.repo).not.toMatch(/alice|app/);
    }
  });
});
