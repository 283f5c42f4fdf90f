// Enrolling a laptop with no key, as issue #32 item 4 asks: a fresh HOME runs the real install.sh from a
// real server with no key; it prints a code and the dashboard's URL and polls; the person opens that URL
// in Chromium, signs in with their own key and clicks Approve; the installer receives a collector key of
// theirs, finishes (exit 0, no systemd user instance here), and that key ships an event through the
// installed hook and collector.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../helpers/browser.ts';
import { type ServerProcess, seedAccount, startServerProcess, waitFor } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const bin = join(home, '.agentmeter', 'bin');
let server: ServerProcess;
let browser: Browser;
let key: string;
let installer: ChildProcess | undefined;

/** Only what a developer's shell has: no key, no AGENTMETER_* of the test run, no systemd user session. */
const env = () => ({ HOME: home, PATH: process.env['PATH']!, LOG_LEVEL: 'warn', TZ: 'UTC' });

beforeAll(async () => {
  mkdirSync(join(home, '.claude'), { recursive: true });
  ({ key } = await seedAccount(db, 'member', 'ana@example.com'));
  server = await startServerProcess(db);
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  installer?.kill('SIGTERM');
  await browser?.close();
  await server?.stop();
});

describe('curl -fsSL SERVER/install.sh | sh, with no key', { timeout: 240_000 }, () => {
  it('the code is approved in the dashboard, and the laptop ends with a collector key of its own that ships', async () => {
    const script = await (await fetch(`${server.url}/install.sh`)).text();
    installer = spawn('sh', ['-s'], { env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    installer.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    installer.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => installer!.once('exit', resolve));
    installer.stdin!.end(script);

    await waitFor(() => /agentmeter: open (\S+)/.test(stdout), 60_000, 'the installer printing the URL');
    const url = /agentmeter: open (\S+)/.exec(stdout)![1]!;
    const code = /approve the code ([A-Z]{4}-[A-Z]{4})/.exec(stdout)![1]!;
    expect(url).toBe(`${server.url}/device?code=${code}`);

    // The person: the link, the sign-in form it leads to, then the approval page with the code filled in.
    const context = await browser.newContext({ locale: 'en-US', timezoneId: 'UTC' });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(url);
    await page.getByLabel('API key or token').fill(key);
    // Not signed in yet: the page says how a person of an identity-provider organization gets here.
    expect(await page.getByTestId('device-signin-hint').textContent()).toContain('open this code');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const request = page.getByTestId('device-request');
    await request.waitFor();
    expect(await page.getByLabel('Code').inputValue()).toBe(code);
    expect(await request.textContent()).toContain(`install.sh on `);
    await page.getByRole('button', { name: 'Approve this machine' }).click();
    await page.locator('[data-testid="device-request"][data-state="approved"]').waitFor();
    expect(await request.textContent()).toContain('Approved by ana@example.com');
    await context.close();
    expect(problems).toEqual([]);

    // The laptop: the installer finishes on its own with a key of its own.
    expect(await exited, stderr).toBe(0);
    installer = undefined;
    expect(stdout).toContain('approved: this machine has a collector key of its own');
    const written = /\nAGENTMETER_API_KEY=(am_[A-Za-z0-9_-]+)\n/.exec(readFileSync(join(home, '.agentmeter', 'collector.env'), 'utf8'));
    const collectorKey = written![1]!;
    expect(collectorKey).not.toBe(key);
    const me = await fetch(`${server.url}/api/v0/auth/me`, { headers: { authorization: `Bearer ${collectorKey}` } });
    expect(await me.json()).toMatchObject({ email: 'ana@example.com', scope: 'collector' });

    // An event through the installed hook, shipped with that key.
    const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
    const command = settings.hooks.Stop[0].hooks.find((h: { command: string }) => h.command.includes('agentmeter-hook.sh')).command;
    const payload = { hook_event_name: 'Stop', session_id: 'device-e2e', cwd: home, permission_mode: 'default' };
    expect(spawnSync('sh', ['-c', command], { input: JSON.stringify(payload), env: env() }).status).toBe(0);
    const shipped = spawnSync(join(bin, 'agentmeter'), ['collect', '--once'], { env: env(), encoding: 'utf8' });
    expect(shipped.status, shipped.stderr).toBe(0);
    expect(shipped.stdout).toContain('shipped 1,');
    const machines = await fetch(`${server.url}/api/v0/machines`, { headers: { authorization: `Bearer ${key}` } });
    expect(((await machines.json()) as { machines: { events: number }[] }).machines).toEqual([expect.objectContaining({ events: 1 })]);

    // Run again with no key: the machine keeps its key, no new sign-in.
    const again = spawnSync('sh', ['-s'], { input: script, env: env(), encoding: 'utf8', timeout: 120_000 });
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).not.toContain('approve the code');
    expect(readFileSync(join(home, '.agentmeter', 'collector.env'), 'utf8')).toContain(`AGENTMETER_API_KEY=${collectorKey}\n`);
  });
});
