// Secrets the server must read back in clear, sealed at rest with AES-256-GCM under one 256-bit key per
// database, kept in `<database>.oidc-key` (mode 0600, created on first use, never through a link; the name
// is the one it had when it sealed only the OIDC client secret, kept so that existing keys still open what
// they sealed). What it seals: OIDC client secrets, GitHub webhook secrets, and alert destinations' URLs and
// signing secrets (budgets, alert settings, alert deliveries). Why not stored as given: the server needs
// them at every sign-in, check or delivery, so the key must sit on the same machine; what this buys is that
// the database file alone (a backup, a copy handed to support, `SELECT *`) does not reveal them. Losing the
// key file means setting those secrets again. An in-memory database gets a key that lives as long as the
// process, as the database does.

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { UserError } from './errors.ts';
import { writePrivateFile } from './private-files.ts';

const VERSION = 'v1';
const MEMORY = ':memory:';
let memoryKey: Buffer | undefined;

/** The key file's name after the database's (`<database>.oidc-key`; the name predates the other secrets). */
export const KEY_FILE_SUFFIX = '.oidc-key';
export const keyFileFor = (dbPath: string) => `${dbPath}${KEY_FILE_SUFFIX}`;

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
    if (readSync(fd, key, 0, 32, 0) !== 32) throw new UserError(`${path} is not an agentmeter secret key (32 bytes)`);
    return key;
  } finally {
    closeSync(fd);
  }
}

/** The key of the database at `dbPath`; created (0600) when `create` and missing. */
export function secretKey(dbPath: string, create: boolean): Buffer | undefined {
  if (dbPath === MEMORY) {
    if (!memoryKey && create) memoryKey = randomBytes(32);
    return memoryKey;
  }
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

/**
 * Pure: whether a value has the sealed form. A URL in clear never has it (it starts with its scheme), so a
 * migration that seals stored URLs can tell what an earlier run of it already sealed.
 */
export const isSealed = (value: string): boolean => /^v1\.[\w-]{16}\.[\w-]{22}\.[\w-]*$/.test(value);

/** The secret sealed; throws when the format is unknown or the key is not the one that sealed it. */
export function unseal(key: Buffer, sealed: string): string {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('sealed secret: unknown format');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}
