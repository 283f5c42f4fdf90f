// The computer's local policy (computer/policy.ts) on fixtures: a made-up file system whose links are a map.
import { describe, expect, it } from 'vitest';
import { keyKindFor } from '../../api/keys/minting.ts';
import { isWithin, modelProblem, sessionDirectory } from '../../computer/policy.ts';

// A made-up file system: the folders that exist, and links (absolute targets). /home/ana/src is allowed;
// /home/ana/src/out links to /etc, /home/ana/src/lib to a folder inside the root.
const DIRS = new Set(['/', '/root', '/etc', '/home', '/home/ana', '/home/ana/src', '/home/ana/src-old', '/home/ana/src/app']);
const LINKS: Record<string, string> = {
  '/home/ana/src/out': '/etc',
  '/home/ana/src/lib': '/home/ana/src/app',
  '/home/ana/link-to-src': '/home/ana/src',
};
/** realpath(3) over that file system: components left to right, `..` after a link is the target's parent. */
const realpath = (path: string): string | undefined => {
  let real = '/';
  for (const part of path.split('/').filter((p) => p !== '' && p !== '.')) {
    const next = part === '..' ? real.replace(/\/[^/]*$/, '') || '/' : `${real === '/' ? '' : real}/${part}`;
    real = LINKS[next] ?? next;
    if (!DIRS.has(real)) return undefined;
  }
  return real;
};
const policy = { defaultCwd: '/home/ana/src', roots: ['/home/ana/src'] };

describe('sessionDirectory', () => {
  it('allows the root, folders below it, and links that stay inside it, as their real paths', () => {
    expect(sessionDirectory(null, policy, realpath)).toEqual({ path: '/home/ana/src' });
    expect(sessionDirectory('/home/ana/src/app', policy, realpath)).toEqual({ path: '/home/ana/src/app' });
    expect(sessionDirectory('/home/ana/src/lib', policy, realpath)).toEqual({ path: '/home/ana/src/app' });
    expect(sessionDirectory('app', policy, realpath)).toEqual({ path: '/home/ana/src/app' });
    expect(sessionDirectory('/home/ana/link-to-src', policy, realpath)).toEqual({ path: '/home/ana/src' });
    expect(sessionDirectory('/home/ana/src/app/../app/', policy, realpath)).toEqual({ path: '/home/ana/src/app' });
  });

  it('refuses a folder outside the roots, `..` out of a root, a link out of it, and a sibling with the same prefix', () => {
    const outside = (requested: string) => {
      const result = sessionDirectory(requested, policy, realpath);
      expect(result, requested).toMatchObject({
        error: expect.stringContaining('is outside the folders this computer allows (/home/ana/src)'),
      });
      return 'error' in result ? result.error : '';
    };
    expect(outside('/root')).toBe(
      "the session's directory /root is outside the folders this computer allows (/home/ana/src); its owner can allow more with agentmeter computer run --allow-root DIR",
    );
    expect(outside('/home/ana/src/../..')).toContain("the session's directory /home/ana/src/../.. (/home) is outside");
    expect(outside('app/../..')).toContain('(/home/ana)');
    expect(outside('/home/ana/src/out')).toContain('/home/ana/src/out (/etc) is outside');
    expect(outside('/home/ana/src/out/..')).toContain('/home/ana/src/out/.. (/) is outside');
    outside('/home/ana/src-old');
    outside('/');
  });

  it('says when the folder does not exist, and keeps long paths short in the reason', () => {
    expect(sessionDirectory('/home/ana/src/nope', policy, realpath)).toEqual({
      error: "the session's directory /home/ana/src/nope does not exist on this computer",
    });
    const long = `/${'x'.repeat(4000)}`;
    const result = sessionDirectory(long, policy, realpath);
    expect('error' in result && result.error.length).toBeLessThan(300);
  });

  it('no existing root allows nothing', () => {
    expect(sessionDirectory(null, { ...policy, roots: [] }, realpath)).toEqual({
      error: "the session's directory /home/ana/src is refused: none of the folders this computer allows exists",
    });
  });

  it('a root of / allows everything; several roots each count', () => {
    expect(sessionDirectory('/etc', { ...policy, roots: ['/'] }, realpath)).toEqual({ path: '/etc' });
    expect(sessionDirectory('/root', { ...policy, roots: ['/home/ana/src', '/root'] }, realpath)).toEqual({ path: '/root' });
  });
});

describe('isWithin', () => {
  it('is the root or below it, never a sibling sharing its prefix', () => {
    expect(isWithin('/a/b', '/a/b')).toBe(true);
    expect(isWithin('/a/b/c', '/a/b')).toBe(true);
    expect(isWithin('/a/bc', '/a/b')).toBe(false);
    expect(isWithin('/a', '/a/b')).toBe(false);
    expect(isWithin('/anything', '/')).toBe(true);
  });
});

describe('modelProblem', () => {
  it('passes model names, refuses what could be read as an option or is no name', () => {
    for (const model of ['gpt-5', 'claude-opus-4-1-20250805', 'sonnet[1m]', 'custom:my/model@2'])
      expect(modelProblem(model)).toBeUndefined();
    for (const model of ['--dangerously-skip-permissions', '-x', 'a b', 'a\nb', ''])
      expect(modelProblem(model), model).toContain('is not a model name this computer passes to the agent');
  });
});

describe('keyKindFor', () => {
  it('the operator mints personal keys; a person only for themselves, with a personal credential', () => {
    expect(keyKindFor('operator', 'usr_a')).toBe('personal');
    expect(keyKindFor({ userId: 'usr_a', credential: 'personal' }, 'usr_a')).toBe('personal');
    expect(keyKindFor({ userId: 'usr_m', credential: 'personal' }, 'usr_a')).toBe('delegated');
    expect(keyKindFor({ userId: 'usr_a', credential: 'delegated' }, 'usr_a')).toBe('delegated');
    expect(keyKindFor({ userId: 'usr_a', credential: 'invitation' }, 'usr_a')).toBe('delegated');
  });
});
