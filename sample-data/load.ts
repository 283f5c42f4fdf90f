// Loads the sample organization into a running server: accounts first (through the store, since the
// server holds the database), then the generated activity through the real hook and collector path,
// then the batch. Shows progress: the first `npm start` takes a minute.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AccountStore, Org } from '../api/store/accounts.ts';
import type { Logger } from '../common/logger.ts';
import type { BatchOptions, BatchReport } from '../pipeline/batch.ts';
import { generate } from './generator.ts';
import { replay } from './replay.ts';

export const SAMPLE_ORG_NAME = 'Sample organization (generated)';
export const SAMPLE_SEED = 20261121;

export interface LoadOptions {
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

export async function loadSample(options: LoadOptions): Promise<{ org: Org; events: number }> {
  const lastDay = options.lastDay ?? new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
  const plan = generate({ seed: SAMPLE_SEED, lastDay, days: options.days ?? 60, users: options.users ?? 40 });
  const org = await options.accounts.createOrg(SAMPLE_ORG_NAME);
  const keys: string[] = [];
  for (const user of plan.users) {
    const created = await options.accounts.createUser({ orgId: org.id, email: user.email, role: user.role });
    keys.push((await options.accounts.createKey(created, 'sample collector')).key);
  }
  const workDir = mkdtempSync(join(tmpdir(), 'agentmeter-sample-'));
  const progress = options.progress ?? (() => undefined);
  try {
    const started = Date.now();
    const result = await replay(plan, {
      server: options.server,
      keys,
      workDir,
      log: options.log,
      onProgress: (done, total) =>
        progress(`sample data: ${done}/${total} hook events spooled and shipped (${Math.round((Date.now() - started) / 1000)} s)`),
    });
    progress('sample data: building the daily aggregates');
    await options.runBatch({ trigger: 'demo', log: options.log });
    return { org, events: result.events };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
