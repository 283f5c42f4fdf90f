// An API key's secret: how one is made, how much of it listings show, and the hash it is stored as. API
// keys are random, prefixed "am_", shown once and stored only as a SHA-256 hash (they carry 256 bits of
// entropy, so a fast hash is enough to make a stolen table useless). The other tokens of the server
// (computers', SCIM, dashboard sessions, OIDC state) are stored with the same hash.
import { hash, randomBytes } from 'node:crypto';

export const KEY_PREFIX = 'am_';
// One-shot `hash` (Node 20.12+): every authenticated request hashes its credential to find it in the
// principal cache, and this is half the cost of createHash().update().digest().
export const hashKey = (key: string) => hash('sha256', key, 'hex');
export const generateKey = () => `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
/** The part of a key shown in listings: enough to tell keys apart, useless to an attacker. */
export const keyDisplayPrefix = (key: string) => key.slice(0, KEY_PREFIX.length + 6);
