// The OIDC client secret at rest: sealed with AES-256-GCM under a 256-bit key kept in `<database>.oidc-key`
// (mode 0600, created on first use, never through a link). Why not stored as given: the server needs the
// secret in clear at every sign-in, so the key must sit on the same machine; what this buys is that the
// database file alone (a backup, a copy handed to support, `SELECT *`) does not reveal it. Losing the key
// file only means configuring the provider again (`agentmeter orgs oidc`).

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { UserError } from '../../common/errors.ts';
import { writePrivateFile } from '../../common/private-files.ts';

const VERSION = 'v1';

export const keyFileFor = (dbPath: string) => `${dbPath}.oidc-key`;

/** Reads the key without following a link; undefined when the file does not exist. */
function readKey(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw new UserError(`${path} is a symbolic link; agentmeter does not follow it`);
    throw error;
  }
  try {
    if ((fstatSync(fd).mode & 0o077) !== 0) throw new UserError(`${path} is readable by others; make it private (chmod 600)`);
    const key = Buffer.alloc(32);
    if (readSync(fd, key, 0, 32, 0) !== 32) throw new UserError(`${path} is not an agentmeter OIDC key (32 bytes)`);
    return key;
  } finally {
    closeSync(fd);
  }
}

/** The key of the database at `dbPath`; created (0600) when `create` and missing. */
export function secretKey(dbPath: string, create: boolean): Buffer | undefined {
  const path = keyFileFor(dbPath);
  const found = readKey(path);
  if (found || !create) return found;
  writePrivateFile(path, randomBytes(32));
  return readKey(path);
}

/** `v1.<iv>.<tag>.<ciphertext>`, base64url. */
export function seal(key: Buffer, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
}

export function unseal(key: Buffer, sealed: string): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('sealed OIDC secret: unknown format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
