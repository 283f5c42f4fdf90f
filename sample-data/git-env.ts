// The environment of every git the sample runs: the person as author and committer at a given time, no
// system configuration, and no automatic gc or maintenance (the receive-pack a push starts included). The
// sample's git runs beside the demo's server and collectors, and an automatic gc after a push held all of
// them for up to 5 s.
import { shAssignments, shQuote } from './sh.ts';

export function sampleGitEnv(email: string, when: string): Record<string, string> {
  return {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_COUNT: '3',
    GIT_CONFIG_KEY_0: 'gc.auto',
    GIT_CONFIG_VALUE_0: '0',
    GIT_CONFIG_KEY_1: 'maintenance.auto',
    GIT_CONFIG_VALUE_1: 'false',
    GIT_CONFIG_KEY_2: 'receive.autogc',
    GIT_CONFIG_VALUE_2: 'false',
    GIT_AUTHOR_NAME: email,
    GIT_AUTHOR_EMAIL: email,
    GIT_COMMITTER_NAME: email,
    GIT_COMMITTER_EMAIL: email,
    GIT_AUTHOR_DATE: when,
    GIT_COMMITTER_DATE: when,
  };
}

/**
 * One git command as an sh line for a hook driver (replay.ts, HookDriver): in `cwd`, as the person at
 * `when`, its stdin not the driver's script (which it would otherwise inherit); a failure ends the driver
 * with exit 6.
 */
export function sampleGitLine(cwd: string, args: string[], email: string, when: string): string {
  return `(cd ${shQuote(cwd)} && ${shAssignments(sampleGitEnv(email, when))} git ${args.map(shQuote).join(' ')} </dev/null >/dev/null 2>&1) || exit 6\n`;
}
