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
