// How each code host proves a delivery is its own (docs/pull-requests.md). GitHub signs the exact body
// bytes: X-Hub-Signature-256 is "sha256=" and the hex HMAC-SHA256 of the body under the webhook's secret.
// GitLab sends the secret token itself in X-Gitlab-Token; only its SHA-256 is stored, so the check
// compares hashes. Both compare in constant time.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/** Pure: whether `header` is GitHub's signature of `body` under `secret`. */
export function githubSignatureValid(secret: string, body: Buffer, header: string | undefined): boolean {
  if (!header?.startsWith('sha256=')) return false;
  const given = header.slice('sha256='.length);
  if (!/^[0-9a-f]{64}$/i.test(given)) return false;
  const expected = createHmac('sha256', secret).update(body).digest();
  return sameBytes(Buffer.from(given, 'hex'), expected);
}

/** The hash a GitLab token is stored as. */
export const gitlabTokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** Pure: whether the X-Gitlab-Token `header` is the token whose hash is `storedHash`. */
export function gitlabTokenValid(storedHash: string, header: string | undefined): boolean {
  if (header === undefined || header === '') return false;
  return sameBytes(Buffer.from(gitlabTokenHash(header), 'hex'), Buffer.from(storedHash, 'hex'));
}

/** What a test or a host computes to sign `body` as GitHub does. */
export const githubSignature = (secret: string, body: Buffer | string) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
