// A secret read from a file the operator names: never from the command line, where `ps` and the shell's
// history see it. A link is not followed.
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import { UserError } from '../common/errors.ts';

/** The file's content, trimmed; `what` names the secret in the errors ("the client secret"). */
export function readSecretFile(path: string, what: string): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(code === 'ELOOP' ? `${path} is a symbolic link; give the file itself` : `cannot read ${path}: ${code ?? error}`);
  }
  try {
    const secret = readFileSync(fd, 'utf8').trim();
    if (!secret) throw new UserError(`${path} is empty; it must hold ${what}`);
    return secret;
  } finally {
    closeSync(fd);
  }
}
