// Where the collector keeps the code feature's state under $AGENTMETER_HOME: repos.json, models.json,
// pending.json and the ledger. Collectors before the feature had one name kept it in a folder named after
// its former name; the first start that finds that folder moves it, so no ledger is lost to the rename (a
// lost ledger would credit no agent line that lands later).
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../../common/logger.ts';
import { ensurePrivateDir, lstatOrUndefined, ownDirProblem } from '../../common/private-files.ts';
import { collectorAlive, readPidFile } from '../pidfile.ts';

/** The state folder's name under $AGENTMETER_HOME. */
export const CODE_STATE_DIR = 'code';

/** The name collectors gave it before (read and moved, never created). */
export const FORMER_CODE_STATE_DIR = 'impact';

/** What became of the former folder at a start. */
export type FormerStateOutcome = 'none' | 'moved' | 'kept-both' | 'refused' | 'in-use';

/** A collector other than this process that holds the home's pid file and is alive. */
function otherCollector(agentmeterHome: string): number | undefined {
  const holder = readPidFile(agentmeterHome);
  return holder !== undefined && holder !== process.pid && collectorAlive(holder) ? holder : undefined;
}

/**
 * The state folder of `agentmeterHome` for this start, the former one moved to the new name first when
 * only the former one exists: a rename within the same folder, which moves it whole or not at all.
 *
 * - A former folder that is a link, not a folder, or another user's is left as it is and not followed:
 *   the new folder starts empty.
 * - While another collector runs on the same home (one started before the update, which keeps writing
 *   the former folder), the former folder is used as it is and moved at a later start: moved under it,
 *   that collector would write its ledger lines and waiting commits into a folder no one reads again.
 * - When both exist, the new one stands and the former one is left for the user to look at.
 */
export function codeStateDir(agentmeterHome: string, log?: Logger): { dir: string; outcome: FormerStateOutcome } {
  const dir = join(agentmeterHome, CODE_STATE_DIR);
  const former = join(agentmeterHome, FORMER_CODE_STATE_DIR);
  const formerStat = lstatOrUndefined(former);
  if (!formerStat) return { dir, outcome: 'none' };
  const problem = ownDirProblem(former, formerStat);
  if (problem) {
    log?.warn({ former, problem }, 'code state: the former folder is left as it is and not read; remove it');
    return { dir, outcome: 'refused' };
  }
  const bothExist = () => {
    log?.warn({ former, dir }, 'code state: both folders exist; the new one is used, the former one is left as it is');
    return { dir, outcome: 'kept-both' as const };
  };
  if (lstatOrUndefined(dir)) return bothExist();
  const holder = otherCollector(agentmeterHome);
  if (holder !== undefined) {
    log?.info(
      { former, pid: holder },
      'code state: another collector runs on this home; the former folder is used and moved at a later start',
    );
    return { dir: former, outcome: 'in-use' };
  }
  try {
    renameSync(former, dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Another start of the same home moved it first: the folder is where it should be.
    if (code === 'ENOENT' && lstatOrUndefined(dir)) return { dir, outcome: 'moved' };
    // The new folder appeared since it was looked for, with something in it.
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return bothExist();
    throw error;
  }
  ensurePrivateDir(dir);
  log?.info({ former, dir }, 'code state: moved to its new folder');
  return { dir, outcome: 'moved' };
}

/**
 * The folder to read the state from without writing anything (`collect status`): the new one, or the
 * former one while no collector has started since the update. A former folder that is not a real folder
 * of ours is not read.
 */
export function readableStateDir(agentmeterHome: string): string {
  const dir = join(agentmeterHome, CODE_STATE_DIR);
  if (lstatOrUndefined(dir)) return dir;
  const former = join(agentmeterHome, FORMER_CODE_STATE_DIR);
  const formerStat = lstatOrUndefined(former);
  return formerStat && !ownDirProblem(former, formerStat) ? former : dir;
}
