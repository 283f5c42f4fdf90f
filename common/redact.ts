// Masks credentials in a configured hook command before it leaves the machine (hooks_by_event). Pure and
// linear in the command's length. The command keeps its shape: only the secret itself becomes "***"
// (`curl -u admin:*** https://…`), so the same hook still reads as what it does.
//
// The command is split into shell words (common/shell-words.ts), each word kept with the position of every
// character it holds in the original text (quotes and backslashes removed), so a secret found in a word's value is masked in
// the original text whatever its quoting. Rule classes, each applied to every word:
// - options that carry a credential (`--password X`, `--token=X`, `-u user:pass`, `mysql -pX`, …),
// - `name=value` and `"name": "value"` pairs whose name looks secret (environment assignments, -D
//   properties, form fields, URL query parameters, JSON bodies),
// - auth-like headers (`Authorization: Bearer X`, `X-Api-Key: X`, `Cookie: …`), keeping the scheme,
// - URL user-info (`https://bob:X@host`),
// - tokens by shape: known prefixes (ghp_, sk-, xoxb-, AKIA, am_, …), JWTs, and long high-entropy runs,
// - webhook URLs whose path is the credential (Slack, Discord, Teams).
// A quoted word holding spaces (`bash -c '…'`) is redacted again as a command of its own.
// Not secrets: references (`$TOKEN`, `${TOKEN}`, `$(cat f)`), file paths given to key options, and hex
// strings (40-hex git SHAs, sha256 digests, UUIDs), which name things rather than unlock them.

import { type ShellWord, shellWords } from './shell-words.ts';

export const MASK = '***';
const MAX_LENGTH = 1024;
const MAX_NESTING = 3;

/** A range [start, end) of a word's value to mask. */
type Span = [number, number];

// ---- names -------------------------------------------------------------------------------------------

/** Name parts that make a name secret wherever they stand (`DB_PASSWORD_PROD`, `--client-secret`). */
const SECRET_PARTS = new Set([
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'credential',
  'credentials',
  'creds',
  'cookie',
  'signature',
  'authorization',
  'bearer',
]);
/** Name parts that make a name secret as its last part only (`API_KEY`, `--auth`, `sig=`). */
const SECRET_LAST = new Set(['key', 'auth', 'pass', 'pwd', 'pat', 'sig', 'pw']);
/** Glued words ending a name (`PGPASSWORD`, `authtoken`). */
const SECRET_SUFFIX = /(password|passwd|secret|token|apikey)$/;
/** A last part that names something about the secret, not the secret (`--password-file`, `TOKEN_URL`). */
const NOT_SECRET_LAST = new Set([
  'file',
  'files',
  'path',
  'dir',
  'name',
  'id',
  'ids',
  'type',
  'url',
  'uri',
  'endpoint',
  'host',
  'port',
  'env',
  'cmd',
  'command',
  'helper',
  'length',
  'len',
  'count',
  'size',
  'ttl',
  'expiry',
  'expires',
  'timeout',
  'prefix',
  'header',
  'stdin',
  'mode',
  'method',
  'algorithm',
  'kind',
  'format',
  'version',
  'hint',
  'user',
  'username',
  'policy',
  'scope',
  'scopes',
  'limit',
  'max',
  'min',
]);
/** AWS_* is secret except for these (where and how to connect, not with what). */
const AWS_NOT_SECRET = new Set([
  'region',
  'profile',
  'output',
  'pager',
  'file',
  'url',
  'mode',
  'attempts',
  'bundle',
  'arn',
  'name',
  'load',
  'config',
]);

function nameParts(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((p) => p.toLowerCase());
}

/** Whether an option, variable, field or header name names a secret. */
export function isSecretName(name: string): boolean {
  const parts = nameParts(name);
  const last = parts.at(-1);
  if (!last) return false;
  if (parts[0] === 'no' && parts.length > 1) return false; // --no-password: a switch
  if (parts[0] === 'aws' && parts.length > 1) return !AWS_NOT_SECRET.has(last);
  if (NOT_SECRET_LAST.has(last)) return false;
  return parts.some((p) => SECRET_PARTS.has(p)) || SECRET_LAST.has(last) || SECRET_SUFFIX.test(last);
}

/** Header names whose values are credentials. */
function isAuthHeader(name: string): boolean {
  return /auth|token|key|secret|cookie|passw|session|signature|credential/i.test(name);
}

// ---- values ------------------------------------------------------------------------------------------

/** `$VAR`, `${VAR}`, `$(cmd)`: a reference to a secret kept elsewhere, not the secret. */
const isReference = (value: string) => /^\$(?:[A-Za-z_][A-Za-z0-9_]*|\{[^}]*\}|\(.*\))$/s.test(value);
/** A file path (a key option often takes one: `curl --key client.key`, `ssh -i`). */
const isPath = (value: string) => /^(?:[~.]?\/|\.\.\/|@)/.test(value) || /\.(?:pem|key|crt|cer|p12|pfx|json|der|pub)$/i.test(value);

/** The span of value [from, to) to mask for a credential of the given kind (undefined: nothing to mask). */
function credentialSpan(value: string, from: number, to: number, kind: 'secret' | 'key' | 'userpass'): Span | undefined {
  const v = value.slice(from, to);
  if (v === '' || isReference(v)) return undefined;
  if (kind === 'userpass') {
    const colon = v.indexOf(':');
    if (colon < 0 || colon === v.length - 1 || isReference(v.slice(colon + 1))) return undefined;
    return [from + colon + 1, to];
  }
  if (kind === 'key' && isPath(v)) return undefined;
  // openssl's -pass/-passin/-passout: pass:SECRET is one; env:, file:, fd: and stdin name where it is.
  const openssl = /^pass:/.exec(v);
  if (openssl) return v.length > 5 ? [from + 5, to] : undefined;
  if (/^(?:env|file|fd):/.test(v) || v === 'stdin') return undefined;
  return [from, to];
}

const kindOfName = (name: string): 'secret' | 'key' => (nameParts(name).at(-1) === 'key' ? 'key' : 'secret');

// ---- commands ----------------------------------------------------------------------------------------

const MYSQL_LIKE = new Set([
  'mysql',
  'mysqldump',
  'mysqladmin',
  'mysqlimport',
  'mysqlshow',
  'mysqlcheck',
  'mysqlpump',
  'mysqlsh',
  'mariadb',
  'mariadb-dump',
  'mariadb-admin',
]);
const PREFIXES = new Set(['sudo', 'env', 'exec', 'time', 'nohup', 'command', 'nice', 'doas', 'xargs', 'timeout']);

/** The short options of a command that carry a credential, and whether the value must be attached (-pX). */
function shortCredentialOption(
  command: string,
  subcommand: string | undefined,
  flag: string,
): { kind: 'secret' | 'userpass'; attachedOnly: boolean } | undefined {
  if (MYSQL_LIKE.has(command)) return flag === 'p' ? { kind: 'secret', attachedOnly: true } : undefined;
  switch (command) {
    case 'curl':
      return flag === 'u' || flag === 'U' ? { kind: 'userpass', attachedOnly: false } : undefined;
    case 'sshpass':
      return flag === 'p' ? { kind: 'secret', attachedOnly: false } : undefined;
    case 'redis-cli':
      return flag === 'a' ? { kind: 'secret', attachedOnly: false } : undefined;
    case 'mongo':
    case 'mongosh':
    case 'mongodump':
    case 'mongorestore':
      return flag === 'p' ? { kind: 'secret', attachedOnly: false } : undefined;
    case 'ldapsearch':
    case 'ldapmodify':
    case 'ldapadd':
    case 'ldapdelete':
    case 'ldappasswd':
      return flag === 'w' ? { kind: 'secret', attachedOnly: false } : undefined;
    case 'sqlcmd':
    case 'bcp':
      return flag === 'P' ? { kind: 'secret', attachedOnly: false } : undefined;
    case 'docker':
    case 'podman':
    case 'nerdctl':
    case 'helm':
      return subcommand === 'login' && flag === 'p' ? { kind: 'secret', attachedOnly: false } : undefined;
    default:
      return undefined;
  }
}

const basename = (word: string) => word.slice(word.lastIndexOf('/') + 1);
const isAssignment = (word: string) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(word);

/** Spans to mask in the words of one command line, by the option that comes before a value. */
function optionSpans(words: ShellWord[], spans: Map<ShellWord, Span[]>): void {
  let command: string | undefined;
  let subcommand: string | undefined;
  let pending: { kind: 'secret' | 'key' | 'userpass' } | undefined;
  const add = (word: ShellWord, span: Span | undefined) => {
    if (span) spans.get(word)!.push(span);
  };
  for (const word of words) {
    const v = word.value;
    if (word.startsCommand) {
      command = undefined;
      subcommand = undefined;
      pending = undefined;
    }
    if (pending) {
      const kind = pending.kind;
      pending = undefined;
      if (!v.startsWith('-')) {
        add(word, credentialSpan(v, 0, v.length, kind));
        continue;
      }
    }
    if (command === undefined) {
      if (isAssignment(v)) continue;
      const name = basename(v);
      if (!PREFIXES.has(name)) command = name;
      continue;
    }
    if (subcommand === undefined && !v.startsWith('-')) subcommand = v;
    if (!v.startsWith('-') || v === '-' || v === '--') continue;
    const eq = v.indexOf('=');
    const name = eq < 0 ? v : v.slice(0, eq);
    // Short options of commands known to take a credential as -pX or -p X.
    const short = /^-([A-Za-z])/.exec(v);
    if (short && !v.startsWith('--')) {
      const option = shortCredentialOption(command, subcommand, short[1]!);
      if (option) {
        if (v.length > 2) add(word, credentialSpan(v, 2, v.length, option.kind));
        else if (!option.attachedOnly) pending = { kind: option.kind };
        continue;
      }
      if (v.length === 2) continue; // other short flags: -v, -i, -X …
    }
    // mysql --password (no value) prompts; the next word is the database.
    if (MYSQL_LIKE.has(command) && eq < 0) continue;
    const userpass = /^--(?:proxy-)?user$/.test(name);
    if (!userpass && !isSecretName(name)) continue;
    const kind = userpass ? 'userpass' : kindOfName(name);
    if (eq >= 0) add(word, credentialSpan(v, eq + 1, v.length, kind));
    else pending = { kind };
  }
}

// ---- pairs, headers, URLs, tokens --------------------------------------------------------------------

/** name=value pairs: at the start of a word (VAR=x, --opt=x, -Dprop=x) and after ?, &, ; or , (queries, forms). */
const PAIR = /(?:^|[?&;,\s])(?:-D)?([A-Za-z0-9_.:/@-]*[A-Za-z0-9_])=([^&;,\s'"]*)/g;
/** "name": "value" in JSON. */
const JSON_PAIR = /"([^"\\]{1,100})"\s*:\s*"((?:[^"\\]|\\.)*)"/g;
/** Name: value headers (curl -H, httpie Name:value, git http.extraHeader); the value runs to the end. */
const HEADER = /(?:^|[\s'"=;{,])([A-Za-z][A-Za-z0-9_-]*)\s*:\s*(?=\S)/g;
const AUTH_SCHEME = /^(?:Bearer|Basic|Token|Digest|Negotiate|NTLM|Bot|OAuth|AWS4-HMAC-SHA256|ApiKey|SSWS)\s+/i;
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)([^\s/@:]*)(?::([^\s/@]*))?@/gi;
/** Webhook URLs whose path is the credential (Slack, Discord, Microsoft Teams): the path after the prefix. */
const WEBHOOK =
  /(?:hooks\.slack\.com\/(?:services|workflows|triggers)\/|discord(?:app)?\.com\/api\/webhooks\/|\.webhook\.office\.com\/webhook[a-z0-9]*\/)([^\s'"?#]+)/gi;
/** Tokens by their known prefixes (GitHub, GitLab, OpenAI and Anthropic, Stripe, Slack, AWS, agentmeter, npm,
 * Hugging Face, PyPI, Shopify, DigitalOcean, Google, SendGrid) and JWTs; one alternation, one scan. */
const KNOWN_TOKEN = new RegExp(
  `(?<![A-Za-z0-9_-])(?:${[
    /(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/,
    /github_pat_[A-Za-z0-9_]{20,}/,
    /glpat-[A-Za-z0-9_-]{16,}/,
    /sk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}/,
    /(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/,
    /xox[abposr]-[A-Za-z0-9-]{10,}/,
    /xapp-[A-Za-z0-9-]{10,}/,
    /(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])/,
    /amc?_[A-Za-z0-9_-]{24,}/,
    /npm_[A-Za-z0-9]{30,}/,
    /hf_[A-Za-z0-9]{30,}/,
    /pypi-[A-Za-z0-9_-]{50,}/,
    /(?:shpat|shpss|shpca)_[a-fA-F0-9]{32}/,
    /dop_v1_[a-f0-9]{64}/,
    /AIza[0-9A-Za-z_-]{35}/,
    /ya29\.[0-9A-Za-z_-]{20,}/,
    /SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}/,
    /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*/,
  ]
    .map((re) => re.source)
    .join('|')})`,
  'g',
);
/** Candidates for the shape rule: 32+ characters of the base64/base64url alphabet. */
const LONG_RUN = /[A-Za-z0-9+/_-]{32,}={0,2}/g;

/** Bits per character (Shannon) of a string. */
function entropy(s: string): number {
  const counts = new Map<string, number>();
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / s.length) * Math.log2(n / s.length);
  return bits;
}

/**
 * A long run that is random rather than words or a path: not hex (SHAs, digests, UUIDs), not an absolute
 * path, the spread of characters of random text (a 32-character run of base64 has ~4.6 bits a character),
 * and the mix of random text: mixed case with upper case between a fifth and four fifths of the letters
 * (camel-case words and paths have about a tenth), or one case with digits a sixth or more of the run.
 */
export function looksRandom(run: string): boolean {
  if (/^[0-9a-fA-F-]+$/.test(run)) return false;
  if (run.startsWith('/') || run.includes('//')) return false;
  const upper = run.replace(/[^A-Z]/g, '').length;
  const lower = run.replace(/[^a-z]/g, '').length;
  const digits = run.replace(/[^0-9]/g, '').length;
  const letters = upper + lower;
  const mixedCase = upper > 0 && lower > 0 && digits > 0 && upper / letters >= 0.2 && upper / letters <= 0.8;
  const oneCase = (upper === 0 || lower === 0) && letters > 0 && digits / run.length >= 1 / 6;
  return (mixedCase || oneCase) && entropy(run) >= 4.2;
}

function valueSpans(value: string, depth: number): Span[] {
  const spans: Span[] = [];
  if (value.includes('='))
    for (const m of value.matchAll(PAIR)) {
      const name = m[1]!;
      if (!isSecretName(name)) continue;
      const start = m.index + m[0].length - m[2]!.length;
      const span = credentialSpan(value, start, start + m[2]!.length, kindOfName(name));
      if (span) spans.push(span);
    }
  if (value.includes('"'))
    for (const m of value.matchAll(JSON_PAIR)) {
      if (!isSecretName(m[1]!) || m[2] === '' || isReference(m[2]!)) continue;
      const end = m.index + m[0].length - 1;
      spans.push([end - m[2]!.length, end]);
    }
  if (value.includes(':')) {
    HEADER.lastIndex = 0;
    for (let m = HEADER.exec(value); m; m = HEADER.exec(value)) {
      if (!isAuthHeader(m[1]!)) continue;
      let start = m.index + m[0].length;
      // The value runs to the end of the word, or to its closing quote inside JSON or quoted text.
      const close = value.slice(start).search(/["']/);
      const end = close >= 0 ? start + close : value.length;
      // The next header can only start after this value: this keeps the scan linear.
      HEADER.lastIndex = end;
      const scheme = AUTH_SCHEME.exec(value.slice(start, end));
      if (scheme) start += scheme[0].length;
      const secret = value.slice(start, end).trimEnd();
      if (secret === '' || isReference(secret.split(/\s/)[0]!)) continue;
      spans.push([start, start + secret.length]);
    }
  }
  if (value.includes('@'))
    for (const m of value.matchAll(URL_USERINFO)) {
      const user = m[2]!;
      const password = m[3];
      const userStart = m.index + m[1]!.length;
      if (password !== undefined && password !== '' && !isReference(password)) {
        const start = userStart + user.length + 1;
        spans.push([start, start + password.length]);
      } else if (password === undefined && user.length >= 16 && looksSecretUser(user)) {
        // https://TOKEN@host: the token is the user.
        spans.push([userStart, userStart + user.length]);
      }
    }
  if (value.includes('/')) {
    for (const m of value.matchAll(WEBHOOK)) spans.push([m.index + m[0].length - m[1]!.length, m.index + m[0].length]);
  }
  if (value.length >= 16) {
    for (const m of value.matchAll(KNOWN_TOKEN)) spans.push([m.index, m.index + m[0].length]);
    for (const m of value.matchAll(LONG_RUN)) {
      // In a URL, a run spans host and path segments: only a random segment is masked, so the URL keeps its shape.
      if (m[0].includes('/') && value.lastIndexOf('://', m.index) >= 0) {
        let at = m.index;
        for (const segment of m[0].split('/')) {
          if (segment.length >= 20 && looksRandom(segment)) spans.push([at, at + segment.length]);
          at += segment.length + 1;
        }
      } else if (looksRandom(m[0])) spans.push([m.index, m.index + m[0].length]);
    }
  }
  // A quoted command (bash -c '…', sh -c "…"): its own words, options and all.
  if (depth < MAX_NESTING && /\s/.test(value)) spans.push(...commandSpans(value, depth + 1));
  return spans;
}

const looksSecretUser = (user: string) => [...user.matchAll(KNOWN_TOKEN)].some((m) => m[0] === user) || looksRandom(user);

/** Merged spans to mask in a command line, in its own coordinates. */
function commandSpans(text: string, depth: number): Span[] {
  const { words } = shellWords(text, { operators: true });
  const spans = new Map<ShellWord, Span[]>(words.map((w) => [w, []]));
  optionSpans(words, spans);
  const all: Span[] = [];
  for (const word of words) {
    for (const [a, b] of [...spans.get(word)!, ...valueSpans(word.value, depth)]) {
      if (b > a) all.push([word.pos[a]!, word.pos[b - 1]! + 1]);
    }
  }
  return merge(all);
}

function merge(spans: Span[]): Span[] {
  spans.sort((x, y) => x[0] - y[0]);
  const out: Span[] = [];
  for (const span of spans) {
    const last = out.at(-1);
    if (last && span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else out.push([span[0], span[1]]);
  }
  return out;
}

/** Masks every span of text with MASK. */
function mask(text: string, spans: Span[]): string {
  let out = '';
  let at = 0;
  for (const [a, b] of spans) {
    out += text.slice(at, a) + MASK;
    at = b;
  }
  return out + text.slice(at);
}

/**
 * Prepares a configured hook command to leave the machine: the user's home directory becomes "~" (so the
 * same hook on every developer's machine is one row in hooks_by_event, and no user name leaks), and
 * credentials are masked (see the rules above). At most 1024 characters, cut after masking.
 */
export function redactCommand(command: string, home?: string): string {
  const homeless = home && home.length > 1 ? command.replaceAll(home.endsWith('/') ? home : `${home}/`, '~/') : command;
  return mask(homeless, commandSpans(homeless, 0)).slice(0, MAX_LENGTH);
}
