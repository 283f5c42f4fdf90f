// Files and folders of one user ($AGENTMETER_HOME, the spool, the collector state, credentials): private
// whatever the umask, and never reached through a link someone else could have planted. A mode given to
// mkdir or open is masked by the umask, so modes are set again explicitly after creation.
import { closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, renameSync, rmSync, type Stats, writeSync } from 'node:fs';
import { UserError } from './errors.ts';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** The user this process runs as; undefined where the platform has no uids (the owner check is skipped). */
export const currentUid = (): number | undefined => process.getuid?.();

/** What is at `path` itself (a link is not followed), or undefined when nothing is. */
export function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Why a folder of ours cannot be used as it is, or undefined when it is a real folder we own. */
export function ownDirProblem(path: string, stat: Stats): string | undefined {
  if (stat.isSymbolicLink()) return `${path} is a symbolic link; agentmeter does not follow links in its own folders`;
  if (!stat.isDirectory()) return `${path} is not a folder`;
  const uid = currentUid();
  if (uid !== undefined && stat.uid !== uid) return `${path} belongs to uid ${stat.uid}, not to this user (uid ${uid})`;
  // A shared folder such as /tmp (sticky bit): not ours to make private, and others can add to it.
  if (stat.mode & 0o1000) return `${path} is a shared folder (sticky bit); use a folder of your own`;
  return undefined;
}

/** Why a write failed, in words (the code of a file system error, read-only or denied). */
export function writeFailure(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'EROFS':
      return 'the file system is read-only (EROFS)';
    case 'EACCES':
    case 'EPERM':
      return `this user may not write there (${code})`;
    case 'ENOSPC':
      return 'no space left on the device (ENOSPC)';
    default:
      return code ?? (error as Error).message;
  }
}

/**
 * Makes sure `path` is a folder of ours with mode 0700: created so when missing (parents that do not
 * exist are created too, and are ours), tightened when found looser. A link, something that is not a
 * folder, or a folder of another user is refused with a UserError, and nothing is changed.
 */
export function ensurePrivateDir(path: string): void {
  let stat: Stats;
  try {
    stat = lstatSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    try {
      mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
    } catch (made) {
      // A read-only file system or a folder not ours to write: one line naming the folder, no stack trace.
      throw new UserError(`cannot create the folder ${path}: ${writeFailure(made)}`);
    }
    stat = lstatSync(path);
  }
  const problem = ownDirProblem(path, stat);
  if (problem) throw new UserError(`${problem}. Nothing was moved; fix the folder and try again.`);
  // Found looser (created by an older version, or with a permissive umask): it is ours, tighten it.
  if ((stat.mode & 0o777) !== PRIVATE_DIR_MODE) {
    const fd = openSync(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
    try {
      fchmodSync(fd, PRIVATE_DIR_MODE);
    } catch (error) {
      throw new UserError(`cannot make the folder ${path} private (mode 0700): ${writeFailure(error)}`);
    } finally {
      closeSync(fd);
    }
  }
}

/**
 * Writes `data` to `path` whole, with mode 0600: a temporary file beside it (opened without following
 * a link, truncated if an earlier attempt left it), then renamed over `path`. A reader never sees half a
 * file, and a link planted at either name is never written through (rename replaces a link itself).
 */
export function writePrivateFile(path: string, data: string | Uint8Array): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
  try {
    // An existing temporary file keeps its old mode through O_TRUNC; a new one got 0600 & ~umask.
    fchmodSync(fd, PRIVATE_FILE_MODE);
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    let written = 0;
    while (written < bytes.length) written += writeSync(fd, bytes, written, bytes.length - written);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw error;
  }
  closeSync(fd);
  try {
    renameSync(tmp, path);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}
