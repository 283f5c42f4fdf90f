// A repository's stable id: the same repository named by https, ssh or scp-like URLs, with or without
// credentials, ".git" or a trailing slash, gets the same id. repo_ + the first 16 hex digits of the
// SHA-256 of "host/path" in lower case.
import { createHash } from 'node:crypto';

/** Pure: "git@GitHub.com:Acme/App.git" and "https://user:tok@github.com/acme/app/" → "github.com/acme/app". */
export function normalizeRepoUrl(url: string): string {
  let rest = url.trim();
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(rest);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(rest)) rest = `${scp[1]}/${scp[2]}`;
  else rest = rest.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/^[^@/]*@/, '');
  rest = rest
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/i, '')
    .replace(/\/+$/, '');
  const [host = '', ...path] = rest.split('/');
  return [host.replace(/:\d+$/, ''), ...path].join('/').toLowerCase();
}

export function repoId(url: string): string {
  return `repo_${createHash('sha256').update(normalizeRepoUrl(url)).digest('hex').slice(0, 16)}`;
}

/** A URL with a scheme ("https://…", "ssh://…"): scheme, authority (userinfo included), the rest. */
const SCHEME_URL = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(.*)$/i;
/** git's scp-like form "[user@]host:path" (not a path, not a URL). */
const SCP_LIKE = /^([^@/\\\s:]+@)?([^@/\\\s:]+):(?![/\\])(.*)$/;
/** A local path or file URL in any of the forms git accepts as a remote. */
const LOCAL = /^(?:file:|[/\\~.]|[a-z]:[/\\])/i;

/** What a report names a repository without a shareable remote by: never its path on the disk. */
export const LOCAL_REPO_PREFIX = 'local:';

/**
 * Pure: a remote's URL as it may be shown to the organization: without userinfo (a token in
 * "https://x-access-token:…@github.com/…", or the user name of "git@host:…"), query and fragment.
 * undefined for a local path or file URL (a repository cloned from a folder): its path is not shared.
 */
export function shareableRepoUrl(url: string): string | undefined {
  const trimmed = url.trim();
  if (trimmed === '' || LOCAL.test(trimmed)) return undefined;
  const cut = (rest: string) => rest.replace(/[?#].*$/s, '');
  const scheme = SCHEME_URL.exec(trimmed);
  if (scheme) {
    const host = scheme[2]!.slice(scheme[2]!.lastIndexOf('@') + 1);
    return host === '' ? undefined : `${scheme[1]}://${host}${cut(scheme[3]!)}`;
  }
  const scp = SCP_LIKE.exec(trimmed);
  if (scp) return `${scp[2]}:${cut(scp[3]!)}`;
  return undefined;
}

/**
 * Pure: why a report's repoUrl may not be stored, or undefined when it may: it carries userinfo (a
 * credential, or a user name), a query or a fragment, or names a local path. The evaluator sends
 * shareableRepoUrl's form, or "local:<id>" for a repository without one.
 */
export function repoUrlProblem(url: string): string | undefined {
  const trimmed = url.trim();
  if (trimmed.startsWith(LOCAL_REPO_PREFIX)) {
    return /^local:[0-9a-z_-]{1,64}$/i.test(trimmed) ? undefined : 'a local repository is named local:<id> (letters, digits, - and _)';
  }
  if (LOCAL.test(trimmed)) return 'must not name a local path or file: URL; a repository without a remote is named local:<id>';
  if (/[?#]/.test(trimmed)) return 'must not carry a query or fragment';
  const scheme = SCHEME_URL.exec(trimmed);
  if (scheme?.[2]?.includes('@') || (!scheme && SCP_LIKE.exec(trimmed)?.[1]))
    return 'must not carry userinfo (a user name or credential before @); send the URL without it';
  if (!scheme && !SCP_LIKE.test(trimmed)) return "must be a URL (https://host/path) or git's host:path form";
  return undefined;
}

/** The longest repository name kept (landed commits, edits, pull requests and the list's cursor). */
export const REPO_NAME_MAX = 512;

/**
 * Pure: why a repository name as landed commits, edits and pull requests carry it (normalizeRepoUrl's
 * `host/path`, or `local:<id>`) may not be stored, or undefined when it may: the readiness reports' rules
 * for a name of this form: no scheme (`file://` or any), no local path, no credential or user name, no
 * query or fragment, no control character; at most REPO_NAME_MAX characters.
 */
export function repoNameProblem(name: string): string | undefined {
  if (name.length > REPO_NAME_MAX) return `must be at most ${REPO_NAME_MAX} characters`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'must not hold a control character';
  if (name.startsWith(LOCAL_REPO_PREFIX))
    return /^local:[0-9a-z_-]{1,64}$/i.test(name) ? undefined : 'a local repository is named local:<id> (letters, digits, - and _)';
  if (/^[a-z][a-z0-9+.-]*:/i.test(name) || LOCAL.test(name) || name.includes('\\'))
    return 'must be a host/path or local:<id>, never a local path, a file: URL or any URL with a scheme';
  if (/[?#]/.test(name)) return 'must not carry a query or fragment';
  if (name.includes('@')) return 'must not carry userinfo (a user name or credential before @)';
  if (!/^[^/\s]+\/\S/.test(name) || /\s/.test(name)) return 'must be a host/path (no spaces)';
  return undefined;
}

/**
 * Pure: how the organization knows a repository by its remote's URL: its id and a shareable name, the
 * normalized host/path, or `local:<16 hex digits of its id>` for a local path or file URL (a repository
 * cloned from a folder), whose path is never shared. What landed commits and edits ship (docs/metrics.md §5).
 */
export function repoIdentity(url: string): { repoId: string; repo: string } {
  const id = repoId(url);
  return {
    repoId: id,
    repo: shareableRepoUrl(url) === undefined ? `${LOCAL_REPO_PREFIX}${id.slice('repo_'.length)}` : normalizeRepoUrl(url),
  };
}
