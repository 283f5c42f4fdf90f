// The computer's credentials, written by `agentmeter computer register` to $AGENTMETER_HOME/computer.json
// (mode 0600: the token lets its holder take this computer's work) and read by `agentmeter computer run`.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { UserError } from '../common/errors.ts';
import { jsonReadProblem } from '../common/json-read-problem.ts';
import { ensurePrivateDir, writePrivateFile } from '../common/private-files.ts';

export const ComputerCredentials = z.strictObject({
  server: z.url(),
  computerId: z.string().min(1),
  name: z.string(),
  token: z.string().startsWith('amc_'),
});
export type ComputerCredentials = z.infer<typeof ComputerCredentials>;

export const credentialsPath = (agentmeterHome: string) => join(agentmeterHome, 'computer.json');

export function saveCredentials(agentmeterHome: string, credentials: ComputerCredentials): void {
  ensurePrivateDir(agentmeterHome);
  writePrivateFile(credentialsPath(agentmeterHome), `${JSON.stringify(credentials, null, 2)}\n`);
}

export function loadCredentials(agentmeterHome: string): ComputerCredentials {
  const path = credentialsPath(agentmeterHome);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    throw new UserError(
      missing
        ? `This machine is not registered as a computer (no ${path}): run \`agentmeter computer register\` first`
        : `Cannot read ${path}: ${jsonReadProblem(error)}`,
    );
  }
  const parsed = ComputerCredentials.safeParse(json);
  if (!parsed.success)
    throw new UserError(`${path} is not a computer credentials file; register again with \`agentmeter computer register\``);
  return parsed.data;
}

/** A stable id for this machine (the computer's hostId), kept beside the credentials. */
export function hostId(agentmeterHome: string): string {
  const path = join(agentmeterHome, 'host-id');
  try {
    const id = readFileSync(path, 'utf8').trim();
    if (z.uuid().safeParse(id).success) return id;
  } catch {
    // Created below.
  }
  ensurePrivateDir(agentmeterHome);
  const id = randomUUID();
  writePrivateFile(path, `${id}\n`);
  return id;
}
