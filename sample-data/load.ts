// Loads the sample organization into a running server: accounts first (through the store, since the
// server holds the database), then the generated activity through the real hook and collector path,
// then the batch. Shows progress: the first `npm start` takes a minute.
import { existsSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccountStore, Org } from '../api/accounts/store.ts';
import { revokeWhatRevokedKeysMinted } from '../api/keys/store.ts';
import { importRosterText } from '../api/teams/service.ts';
import type { User } from '../api/users/store.ts';
import { GitRelay } from '../collector/code/git-relay.ts';
import { sleepSync } from '../common/backoff.ts';
import type { Db } from '../common/db/duckdb.ts';
import type { Logger } from '../common/logger.ts';
import type { BatchOptions, BatchReport } from '../pipeline/batch.ts';
import { generate } from './generator.ts';
import { replayGitActivity } from './git-activity.ts';
import { replay, ShippingSlots } from './replay.ts';

export const SAMPLE_ORG_NAME = 'Sample organization (generated)';
export const SAMPLE_SEED = 20261121;
/** The demo's sample: this many days up to yesterday, this many people. */
export const SAMPLE_DAYS = 60;
export const SAMPLE_USERS = 40;
/** The names of the keys the demo mints, so that the next start can revoke them and no other key. */
export const SAMPLE_COLLECTOR_KEY_NAME = 'sample collector';
export const DEMO_KEY_NAME_PREFIX = 'agentmeter demo ';

/**
 * Revokes the keys the demo minted in the sample organization: the manager key printed at each start and
 * the sample users' collector keys (used only while the sample loads). Keys are stored as hashes, so the
 * demo cannot show an old key again; it mints a new one each start, and without this every `npm start`
 * left one more valid key behind. Only the sample organization, and only these names (`demo <time>` is
 * what earlier versions named the manager key); a key an admin created keeps working.
 */
const REVOKE_DEMO_KEYS = `UPDATE api_keys SET revoked_at = now()
  WHERE org_id = $org AND revoked_at IS NULL
    AND (name = $collector OR starts_with(name, $prefix) OR regexp_full_match(name, 'demo [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z'))`;

export async function revokeDemoKeys(db: Db, org: Org): Promise<number> {
  if (org.name !== SAMPLE_ORG_NAME) throw new Error(`${org.id} is not the sample organization`);
  // What those keys minted ends with them, as when any key is revoked (SCIM tokens, computers' tokens).
  return db.transaction(async (tx) => {
    const revoked = await tx.run(REVOKE_DEMO_KEYS, { org: org.id, collector: SAMPLE_COLLECTOR_KEY_NAME, prefix: DEMO_KEY_NAME_PREFIX });
    await revokeWhatRevokedKeysMinted(tx, org.id);
    return revoked;
  });
}

/** The demo's manager key for this start: the demo's earlier keys revoked, a new one minted. */
export async function newDemoKey(db: Db, accounts: AccountStore, org: Org, manager: User): Promise<{ key: string; revoked: number }> {
  const revoked = await revokeDemoKeys(db, org);
  const { key } = await accounts.createKey(manager, `${DEMO_KEY_NAME_PREFIX}${new Date().toISOString()}`);
  return { key, revoked };
}

/** statfs's f_type of a tmpfs (linux/magic.h TMPFS_MAGIC). */
const TMPFS_MAGIC = 0x01021994;
/** The sample's scratch homes take ~20 MB at their largest; a memory folder with less room is passed over. */
const SCRATCH_MIN_FREE = 256 * 1024 * 1024;

/**
 * Where the replay keeps its throwaway homes (a spool, transcripts and settings per sample user, removed
 * when the load ends): the system's memory-backed /dev/shm where it is a tmpfs with room and no TMPDIR
 * was chosen, else the temporary folder. The replay creates and removes some 40,000 small files; in
 * memory that spares the disk, and on an ext4 without a journal (this project's 2-core machines) each
 * new file's inode search skips every inode removed in the last minutes, which made the first start
 * about a tenth slower.
 */
export function scratchBase(env: NodeJS.ProcessEnv = process.env, shm = '/dev/shm'): string {
  if (env['TMPDIR']) return tmpdir();
  try {
    const fs = statfsSync(shm);
    if (fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= SCRATCH_MIN_FREE) return shm;
  } catch {
    // No /dev/shm (macOS, some containers): the temporary folder.
  }
  return tmpdir();
}

export interface LoadOptions {
  db: Db;
  accounts: AccountStore;
  server: string;
  /** The server's own batch runner (one at a time, clears its response cache). */
  runBatch: (options: BatchOptions) => Promise<BatchReport>;
  log: Logger;
  /** The last day of activity (default: yesterday, UTC). */
  lastDay?: string;
  days?: number;
  users?: number;
  progress?: (line: string) => void;
}

/** A private (0700) scratch folder under scratchBase(), or under the temporary folder if that one refuses. */
function mkdtempScratch(): string {
  const base = scratchBase();
  try {
    return mkdtempSync(join(base, 'agentmeter-sample-'));
  } catch (error) {
    if (base === tmpdir()) throw error;
    return mkdtempSync(join(tmpdir(), 'agentmeter-sample-'));
  }
}

/** Pure: the sample's roster, each person in the team of the work the generator gave them, under one parent. */
export function sampleRoster(users: readonly { email: string; team: string }[]): string {
  const name = (team: string) => `${team[0]!.toUpperCase()}${team.slice(1)}`;
  return `${['email,team,parent,from,to', ...users.map((u) => `${u.email},${name(u.team)},${SAMPLE_PARENT_TEAM},,`)].join('\n')}\n`;
}

/** The team every sample team belongs to: `team=Engineering` is the whole organization. */
export const SAMPLE_PARENT_TEAM = 'Engineering';

export async function loadSample(options: LoadOptions): Promise<{ org: Org; events: number }> {
  const lastDay = options.lastDay ?? new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const plan = generate({ seed: SAMPLE_SEED, lastDay, days: options.days ?? SAMPLE_DAYS, users: options.users ?? SAMPLE_USERS });
  const org = await options.accounts.createOrg(SAMPLE_ORG_NAME);
  const keys: string[] = [];
  for (const user of plan.users) {
    const created = await options.accounts.createUser({ orgId: org.id, email: user.email, role: user.role });
    keys.push((await options.accounts.createKey(created, SAMPLE_COLLECTOR_KEY_NAME)).key);
  }
  // Teams, so the Teams page, the team picker and group_by=team show something at the first start.
  const roster = await importRosterText(options.db, org.id, sampleRoster(plan.users));
  if ('errors' in roster) throw new Error(`the sample roster was refused: ${JSON.stringify(roster.errors)}`);
  const workDir = mkdtempScratch();
  // Removed at the end, and also when the load is interrupted (Ctrl-C closes the server and exits): in
  // /dev/shm the homes would otherwise hold memory until the next reboot. Removed until it stays gone, as
  // a hook started just before the drivers were stopped may still write its event (and create its spool
  // folders again) for a few milliseconds. Synchronous, since it may run as the process exits; never throws.
  const removeWorkDir = () => {
    let failure: unknown;
    for (let attempt = 0; attempt < 10; attempt++) {
      try {
        rmSync(workDir, { recursive: true, force: true });
      } catch (error) {
        failure = error;
      }
      sleepSync(50);
      if (!existsSync(workDir)) return;
    }
    options.log.warn({ error: String(failure), workDir }, "the sample replay's scratch folder could not be removed");
  };
  process.once('exit', removeWorkDir);
  const progress = options.progress ?? (() => undefined);
  // The collectors' git from a small child process: each fork of this one (the server, DuckDB) costs ~25 ms.
  const git = new GitRelay();
  try {
    const started = Date.now();
    const shipping = new ShippingSlots();
    // Two Claude Code users also write code in real git repositories, so the Code page has landed commits:
    // beside the replay, in homes and repositories of their own, while the replay's drivers keep the cores
    // busy (at its end they would run alone, mostly waiting on the server).
    const coders = plan.users
      .map((user, i) => ({ email: user.email, key: keys[i]!, claude: user.agents.includes('claude') }))
      .filter((u) => u.claude)
      .slice(0, 2);
    const gitActivity = replayGitActivity({ server: options.server, users: coders, workDir, lastDay, log: options.log, git, shipping });
    // Awaited after the replay; until then a failure must not end the process unhandled.
    gitActivity.catch(() => undefined);
    const result = await replay(plan, {
      server: options.server,
      keys,
      workDir,
      log: options.log,
      git,
      shipping,
      onProgress: (done, total) =>
        progress(`sample data: ${done}/${total} hook events spooled and shipped (${Math.round((Date.now() - started) / 1000)} s)`),
    }).catch(async (error: unknown) => {
      // Nothing writes into the scratch folder once the load has failed.
      await gitActivity.catch(() => undefined);
      throw error;
    });
    progress('sample data: git activity for the Code page');
    await gitActivity;
    progress('sample data: building the daily aggregates');
    // Nothing reads the homes any more: they go (some 40,000 files) off this thread, beside the batch.
    const removing = rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    await options.runBatch({ trigger: 'demo', log: options.log });
    await removing;
    return { org, events: result.events };
  } finally {
    await git.close();
    process.off('exit', removeWorkDir);
    removeWorkDir();
  }
}
