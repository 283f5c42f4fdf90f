// The user's home, as every part of agentmeter on a developer's machine finds it. Light (node:os only):
// the status line imports it.
import { homedir, userInfo } from 'node:os';

/**
 * The user's home: HOME when it is set and not empty, else the password database's, as the hook finds it
 * (hooks/agentmeter-hook.sh). Node's homedir() gives an empty HOME as it is, which would put the spool in a
 * relative `.agentmeter` of whatever folder the collector started in, where the hook never writes.
 */
export function userHome(envHome: string | undefined, processHome: string = homedir()): string {
  if (envHome) return envHome;
  if (processHome) return processHome;
  try {
    return userInfo().homedir;
  } catch {
    return processHome; // no entry for this user: nothing better to go on
  }
}
