// Credit-limit enforcement end to end: over the limit → the installed UserPromptSubmit hook blocks the
// prompt (exit 2, the message on stderr) after `agentmeter collect --once` learned the status; limit
// raised → prompts pass again. Other events are never blocked.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startServer } from '../../api/server.ts';
import { openDb } from '../../common/db/duckdb.ts';
import type { OrgId, UserId } from '../../common/ids.ts';
import { createLogger } from '../../common/logger.ts';
import { runCliAsync } from '../helpers/processes.ts';
import { usage } from '../helpers/records.ts';
import { bearer } from '../helpers/server.ts';
import { tempDir } from '../helpers/tmp.ts';

const NOW = new Date('2026-03-20T10:00:00Z');
const dir = tempDir();
const home = join(dir, 'home');
const env = { HOME: home, AGENTMETER_HOME: join(home, '.agentmeter') };
let server: RunningServer;
let ownerKey: string;
let memberKey: string;

beforeAll(async () => {
  const db = await openDb(join(dir, 'limits.duckdb'));
  const log = createLogger({ name: 'test', level: 'silent' });
  server = await startServer({ db, log, host: '127.0.0.1', port: 0, handleSignals: false, now: () => NOW });
  const { accounts, ingest } = server.services;
  const org = await accounts.createOrg('Limits');
  const owner = await accounts.createUser({ orgId: org.id, email: 'owner@limits.example.com', role: 'owner' });
  const member = await accounts.createUser({ orgId: org.id, email: 'dev@limits.example.com', role: 'member' });
  ownerKey = (await accounts.createKey(owner)).key;
  memberKey = (await accounts.createKey(member)).key;
  // 0.4 × 5000 = 2000 credits this month.
  await ingest.storeRecords(org.id as OrgId, member.id as UserId, [usage('claude-haiku-4-5', '2026-03-05', { input_tokens: 5000 })]);
  await server.services.runBatch({ trigger: 'cli', log, now: NOW, from: '2026-03-01', to: '2026-03-19' });
});
afterAll(() => server?.close());

async function admin(path: string, body: unknown) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'PUT',
    headers: { ...bearer(ownerKey), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.json();
}

function hook(event: string) {
  const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
  const command = settings.hooks[event][0].hooks[0].command as string;
  return spawnSync('/bin/sh', ['-c', command], {
    input: JSON.stringify({ hook_event_name: event, session_id: 's1', prompt: 'hello' }),
    env: { PATH: process.env['PATH']!, HOME: home },
    encoding: 'utf8',
  });
}

describe('credit-limit enforcement', () => {
  it('blocks prompts while over the limit, and lets them through once it is raised', async () => {
    expect((await runCliAsync(['hooks', 'install', '--agent', 'claude'], env)).status).toBe(0);
    await admin('/api/v0/organization/usage/limits/users', { users: [{ email: 'dev@limits.example.com', limit: 1500 }] });
    await admin('/api/v0/organization/usage/limits/enforcement', { enabled: true });

    const collect = async () => (await runCliAsync(['collect', '--once', '--server', server.url, '--key', memberKey], env)).status;
    expect(hook('UserPromptSubmit').status).toBe(0); // the collector has not learned anything yet
    expect(await collect()).toBe(0);
    const blocked = hook('UserPromptSubmit');
    expect(blocked.status).toBe(2);
    expect(blocked.stderr).toContain('you have used 2000 of your 1500 Standard Credits for 2026-03');
    expect(hook('PostToolUse').status).toBe(0);
    expect(hook('Stop').status).toBe(0);

    await admin('/api/v0/organization/usage/limits/users', { users: [{ email: 'dev@limits.example.com', limit: 10_000 }] });
    expect(await collect()).toBe(0);
    const passes = hook('UserPromptSubmit');
    expect(passes.status).toBe(0);
    expect(passes.stderr).toBe('');
    // Every hook run, blocked or not, was spooled and then shipped.
    expect(await collect()).toBe(0);
    expect((await runCliAsync(['collect', 'status'], env)).stdout).toMatch(/pending: 0\n/);
  });

  it("warns once at 90% of the developer's own budget, then blocks at 100% of it, counting today's usage", async () => {
    const collect = async () => (await runCliAsync(['collect', '--once', '--server', server.url, '--key', memberKey], env)).status;
    // Today, not yet in any batch: 0.4 × 500 = 200 more credits, 2200 in the month.
    const res = await fetch(`${server.url}/api/v1/ingest/events`, {
      method: 'POST',
      headers: { ...bearer(memberKey), 'content-type': 'application/x-ndjson' },
      body: `${JSON.stringify(usage('claude-haiku-4-5', '2026-03-20T09:00:00Z', { input_tokens: 500 }))}\n`,
    });
    expect(res.status).toBe(200);
    // A budget of 2400: 2200 is 91%.
    await admin('/api/v0/organization/budgets', { budgets: [{ scope: 'user', email: 'dev@limits.example.com', monthlyCredits: 2400 }] });
    expect(await collect()).toBe(0);
    const warned = hook('UserPromptSubmit');
    expect(warned.status).toBe(0);
    expect(JSON.parse(warned.stdout)).toEqual({
      systemMessage:
        'agentmeter: you have used 91% of your 2026-03 credit limit (2,200 of 2,400 Standard Credits). Prompts pause at 100% until the limit is raised or the month ends.',
    });
    // Once: not on the next prompt, nor after the collector asks again.
    expect(hook('UserPromptSubmit').stdout).toBe('');
    expect(await collect()).toBe(0);
    expect(hook('UserPromptSubmit').stdout).toBe('');
    // The budget lowered to 2000: the user is over it, and the enforcement blocks.
    await admin('/api/v0/organization/budgets', { budgets: [{ scope: 'user', email: 'dev@limits.example.com', monthlyCredits: 2000 }] });
    expect(await collect()).toBe(0);
    const blocked = hook('UserPromptSubmit');
    expect(blocked.status).toBe(2);
    expect(blocked.stderr).toContain('you have used 2200 of your 2000 Standard Credits for 2026-03');
  });
});
