// The agentmeter program a person or a service manager should run on this machine, as absolute words:
// the installed `$AGENTMETER_HOME/bin/agentmeter` (install.sh puts it there, off PATH), else the command
// running now (a checkout's bin/agentmeter.js under this Node). Every command line we print for someone
// to type (the doctor's fixes, the service's fallbacks) starts with it, since `agentmeter` alone is
// usually not on PATH.
import { existsSync, realpathSync } from 'node:fs';
import { join } from 'node:path';

/** The program's words (absolute paths). */
export function agentmeterProgram(agentmeterHome: string, argv1: string | undefined = process.argv[1]): string[] {
  const installed = join(agentmeterHome, 'bin', 'agentmeter');
  if (existsSync(installed)) return [installed];
  return [process.execPath, argv1 ? realpathSync(argv1) : 'agentmeter'];
}

/** Words as a POSIX shell reads them back: plain words bare, others single-quoted. */
export const shellLine = (words: string[]) =>
  words.map((w) => (/^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replaceAll("'", `'\\''`)}'`)).join(' ');

/** The program as one line to type. */
export const programLine = (agentmeterHome: string) => shellLine(agentmeterProgram(agentmeterHome));
