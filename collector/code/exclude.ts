// Which files the code figures leave out everywhere (docs/metrics.md §5): lock files, minified files, files
// under node_modules/vendor/dist/build, files a repository's .gitattributes marks linguist-generated or
// linguist-vendored, and binary files (decided by the caller: git's numstat, or a NUL in the text).

const LOCK_FILES = new Set([
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  'bun.lockb',
  'Cargo.lock',
  'Gemfile.lock',
  'poetry.lock',
  'uv.lock',
  'composer.lock',
  'go.sum',
]);
const EXCLUDED_SEGMENTS = new Set(['node_modules', 'vendor', 'dist', 'build']);

/** One attribute line of .gitattributes that sets or unsets linguist-generated or linguist-vendored. */
export interface LinguistRule {
  pattern: RegExp;
  /** true: the attribute is set (`attr`, `attr=true`); false: unset (`-attr`, `attr=false`). */
  excluded: boolean;
}

/** Pure: the path with `/` separators and no leading `./` or `/`. */
export const normalizeRelPath = (path: string): string =>
  path
    .replace(/\\/g, '/')
    .replace(/^(?:\.\/)+/, '')
    .replace(/^\/+/, '');

/**
 * Pure: a .gitattributes pattern as a regular expression over a work-tree-relative path, as git matches
 * them: a pattern without a slash matches the base name at any depth, one with a slash is anchored at
 * the root; `*` and `?` stay inside one segment, `**` crosses segments. As in git, an attribute set on a
 * folder is not inherited by the files under it (`vendor/**` is how a folder's files are marked).
 */
export function attributePattern(pattern: string): RegExp {
  let glob = pattern;
  const anchored = glob.includes('/') && !glob.endsWith('/') ? true : glob.slice(0, -1).includes('/');
  glob = glob.replace(/^\//, '').replace(/\/$/, '');
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      const slashAfter = glob[i + 2] === '/';
      out += slashAfter ? '(?:.*/)?' : '.*';
      i += slashAfter ? 2 : 1;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) out += '\\[';
      else {
        out += `[${glob
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`;
        i = end;
      }
    } else out += c.replace(/[.+^${}()|\\]/g, '\\$&');
  }
  return new RegExp(`^${anchored ? '' : '(?:.*/)?'}${out}$`);
}

/** Pure: the linguist-generated / linguist-vendored rules of a .gitattributes file, in file order. */
export function parseLinguistRules(gitattributes: string): LinguistRule[] {
  const rules: LinguistRule[] = [];
  for (const raw of gitattributes.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const [pattern, ...attrs] = line.split(/\s+/);
    if (!pattern || pattern.startsWith('[')) continue;
    for (const attr of attrs) {
      const match = /^(-|!)?linguist-(?:generated|vendored)(?:=(.*))?$/.exec(attr);
      if (!match) continue;
      // `!attr` returns it to unspecified: for us that is the same as not excluded.
      const excluded = !match[1] && (match[2] === undefined || match[2] === 'true');
      rules.push({ pattern: attributePattern(pattern), excluded });
    }
  }
  return rules;
}

/**
 * Pure: whether a work-tree-relative path is left out of every code figure. Later rules of
 * .gitattributes win over earlier ones, as in git.
 */
export function isExcludedPath(relPath: string, rules: readonly LinguistRule[] = []): boolean {
  const path = normalizeRelPath(relPath);
  const segments = path.split('/');
  const base = segments[segments.length - 1] ?? '';
  if (LOCK_FILES.has(base)) return true;
  if (/\.min\.(?:js|css)$/i.test(base)) return true;
  if (segments.slice(0, -1).some((s) => EXCLUDED_SEGMENTS.has(s))) return true;
  let excluded = false;
  for (const rule of rules) if (rule.pattern.test(path)) excluded = rule.excluded;
  return excluded;
}

/** Pure: text git would call binary (a NUL byte in its first 8,000 characters, git's own test). */
export const looksBinary = (text: string): boolean => text.slice(0, 8000).includes('\0');
