// The spool never follows a link and never touches what is not its own (issue 11, item 2): the hook and
// `collect` as subprocesses, against a folder planted behind spool/new, links, folders, fifos and other
// users' files inside it, a malformed file holding a secret, and a umask of 000.
import { spawn, spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI, cliEnv, HOOK_SCRIPT, runCliAsync } from '../helpers/processes.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

/** An ingest endpoint that records the ids it receives and stores them all. */
interface Capture {
  url: string;
  ids: string[];
}

let servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  servers = [];
});

async function captureServer(): Promise<Capture> {
  const ids: string[] = [];
  const server = createServer((req, res) => {
    if (req.method !== 'POST' || req.url !== '/api/v1/ingest/events') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"title":"Not Found","detail":"x","status":404,"requestId":"r"}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const lines = gunzipSync(Buffer.concat(chunks)).toString('utf8').split('\n').filter(Boolean);
      for (const line of lines) ids.push((JSON.parse(line) as { id: string }).id);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ received: lines.length, stored: lines.length, duplicates: 0, rejected: [] }));
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, ids };
}

const event = (i: number) => ({
  session_id: 's1',
  cwd: '/w',
  hook_event_name: 'PostToolUse',
  tool_name: 'Read',
  tool_input: { file_path: `/w/f${i}.ts` },
  tool_response: {},
});

/** A spool file as the hook writes it, but outside the spool (to be linked or moved in). */
const spoolText = (i: number) =>
  `agentmeter-spool=1\nagent=claude\nclient=\nentrypoint=\ndroid_exec=\ntime=\n\n${JSON.stringify(event(i))}`;

/** Every path under dir with its type, mode and content: what "untouched" compares. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string, rel: string) => {
    const stat = lstatSync(path);
    if (stat.isDirectory()) {
      out[`${rel}/`] = `dir ${stat.mode}`;
      for (const name of readdirSync(path).sort()) walk(join(path, name), `${rel}/${name}`);
    } else out[rel] = `file ${stat.mode} ${readFileSync(path, 'utf8')}`;
  };
  walk(dir, '');
  return out;
}

const collectOnce = (server: string, home: string, amHome: string, level = 'debug') =>
  runCliAsync(['collect', '--once', '--server', server, '--key', 'am_test'], { HOME: home, AGENTMETER_HOME: amHome, LOG_LEVEL: level });

const mode = (path: string) => statSync(path).mode & 0o777;

/** Runs a command under `umask 000` (the hook, or the CLI) and waits for it. */
function underUmask000(command: string, args: string[], env: Record<string, string>, input = '') {
  const quoted = [command, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  return spawnSync('sh', ['-c', `umask 000; exec ${quoted}`], { env: cliEnv(env), input, encoding: 'utf8', timeout: 120_000 });
}

/** The CLI under `umask 000`, without blocking this process (the capture server answers on its loop). */
function runUnderUmask000Async(
  args: string[],
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  const quoted = [process.execPath, ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', `umask 000; exec ${quoted}`], { env: cliEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

describe('the spool never follows a link and never touches what is not its own', { timeout: 180_000 }, () => {
  it('spool/new as a link to another folder: collect --once refuses with a clear error, the folder is untouched, and the hook writes nothing there', async () => {
    const home = tempDir();
    const amHome = join(home, '.agentmeter');
    const elsewhere = join(home, 'elsewhere');
    mkdirSync(join(elsewhere, 'sub'), { recursive: true });
    writeFileSync(join(elsewhere, 'passwd'), 'root:x:0:0\n');
    writeFileSync(join(elsewhere, 'sub', 'conf'), 'keep me\n');
    writeFileSync(join(elsewhere, '1700000000.42.host'), spoolText(1));
    mkdirSync(join(amHome, 'spool', 'tmp'), { recursive: true });
    symlinkSync(elsewhere, join(amHome, 'spool', 'new'));
    const before = snapshot(elsewhere);
    const server = await captureServer();

    const result = await collectOnce(server.url, home, amHome);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toContain(`${join(amHome, 'spool', 'new')} is a symbolic link`);
    expect(result.stderr).toContain('Nothing was moved');
    expect(snapshot(elsewhere)).toEqual(before);
    expect(server.ids).toEqual([]);
    expect(lstatSync(join(amHome, 'spool', 'new')).isSymbolicLink()).toBe(true);
    expect(existsSync(join(amHome, 'spool', 'bad'))).toBe(false);

    const status = await runCliAsync(['collect', 'status'], { HOME: home, AGENTMETER_HOME: amHome });
    expect(status.status).not.toBe(0);
    expect(status.stderr).toContain('is a symbolic link');

    const hook = spawnSync('sh', [HOOK_SCRIPT, 'claude'], {
      input: JSON.stringify(event(2)),
      env: { PATH: process.env['PATH']!, AGENTMETER_HOME: amHome },
    });
    expect(hook.status).toBe(0);
    expect(snapshot(elsewhere)).toEqual(before);
  });

  it('$AGENTMETER_HOME or the spool folder as a link is refused the same way', async () => {
    const home = tempDir();
    const real = join(home, 'real');
    writeSpoolFile(real, event(1));
    const before = snapshot(real);
    const server = await captureServer();
    const linkedHome = join(home, 'linked-home');
    symlinkSync(real, linkedHome);
    const viaHome = await collectOnce(server.url, home, linkedHome);
    expect(viaHome.status).not.toBe(0);
    expect(viaHome.stderr).toContain(`${linkedHome} is a symbolic link`);

    const amHome = join(home, 'am');
    mkdirSync(amHome);
    symlinkSync(join(real, 'spool'), join(amHome, 'spool'));
    const viaSpool = await collectOnce(server.url, home, amHome);
    expect(viaSpool.status).not.toBe(0);
    expect(viaSpool.stderr).toContain(`${join(amHome, 'spool')} is a symbolic link`);
    expect(snapshot(real)).toEqual(before);
    expect(server.ids).toEqual([]);

    // The hook creates no folder through such a link either (mkdir -p would follow it).
    const empty = join(home, 'someone-elses');
    mkdirSync(empty);
    for (const [amHomeLink, linkAt] of [
      [join(home, 'home-link'), join(home, 'home-link')],
      [join(home, 'am2'), join(home, 'am2', 'spool')],
    ] as const) {
      mkdirSync(dirname(linkAt), { recursive: true });
      symlinkSync(empty, linkAt);
      const hook = spawnSync('sh', [HOOK_SCRIPT, 'claude'], {
        input: JSON.stringify(event(3)),
        env: { PATH: process.env['PATH']!, AGENTMETER_HOME: amHomeLink },
      });
      expect(hook.status).toBe(0);
      expect(readdirSync(empty)).toEqual([]);
    }
  });

  it('a linked file, a folder, a fifo and another user’s file in new/ are not read, shipped, moved or deleted; the hook’s file ships', async () => {
    const home = tempDir();
    const amHome = join(home, '.agentmeter');
    const good = writeSpoolFile(amHome, event(0));
    const newDir = join(amHome, 'spool', 'new');
    // A link to a valid spool file elsewhere: following it would ship it and then unlink the link.
    const outside = join(home, 'outside-event');
    writeFileSync(outside, spoolText(1));
    symlinkSync(outside, join(newDir, 'test-link-1'));
    mkdirSync(join(newDir, 'test-dir-1'));
    writeFileSync(join(newDir, 'test-dir-1', 'inside'), spoolText(2));
    expect(spawnSync('mkfifo', [join(newDir, 'test-fifo-1')]).status).toBe(0);
    // Hard links to a file elsewhere: shipping would read it, quarantine would tighten its mode. One has
    // no tmp/ name; the other's tmp/ name is another file (not the twin the hook leaves).
    const linkedOutside = join(home, 'linked-outside');
    writeFileSync(linkedOutside, spoolText(4));
    linkSync(linkedOutside, join(newDir, 'test-hardlink-1'));
    linkSync(linkedOutside, join(newDir, 'test-hardlink-2'));
    writeFileSync(join(amHome, 'spool', 'tmp', 'test-hardlink-2'), spoolText(5));
    // Another user's file (simulated with chown when the tests run as root, as here in CI).
    const asRoot = process.getuid?.() === 0;
    if (asRoot) {
      writeFileSync(join(newDir, 'test-other-1'), spoolText(3));
      chownSync(join(newDir, 'test-other-1'), 12345, 12345);
    }
    const foreign = readdirSync(newDir)
      .filter((n) => n !== good)
      .sort();
    const server = await captureServer();

    const result = await collectOnce(server.url, home, amHome);
    expect(result.stderr).not.toMatch(/Error|at .*\.ts:/);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain(`shipped 1, quarantined 0, left alone ${foreign.length}`);
    expect(server.ids).toHaveLength(1);
    expect(server.ids[0]).toMatch(new RegExp(`\\.${good}$`));
    // Each reported once, with its reason.
    for (const name of foreign) expect(result.stderr.split('\n').filter((l) => l.includes(`"file":"${name}"`))).toHaveLength(1);
    expect(readdirSync(newDir).sort()).toEqual(foreign);
    expect(readdirSync(join(amHome, 'spool', 'bad'))).toEqual([]);
    expect(lstatSync(join(newDir, 'test-link-1')).isSymbolicLink()).toBe(true);
    expect(readFileSync(outside, 'utf8')).toBe(spoolText(1));
    expect(readFileSync(join(newDir, 'test-dir-1', 'inside'), 'utf8')).toBe(spoolText(2));
    expect(lstatSync(join(newDir, 'test-fifo-1')).isFIFO()).toBe(true);
    if (asRoot) expect(statSync(join(newDir, 'test-other-1')).uid).toBe(12345);
    expect(readFileSync(linkedOutside, 'utf8')).toBe(spoolText(4));
    expect(statSync(linkedOutside).nlink).toBe(3);
    // The shipped file's twin went with it; the other file under a hard link's name was not touched.
    expect(readdirSync(join(amHome, 'spool', 'tmp'))).toEqual(['test-hardlink-2']);
    expect(readFileSync(join(amHome, 'spool', 'tmp', 'test-hardlink-2'), 'utf8')).toBe(spoolText(5));

    const status = await runCliAsync(['collect', 'status'], { HOME: home, AGENTMETER_HOME: amHome });
    expect(status.status).toBe(0);
    expect(status.stdout).toContain('pending: 0');
    expect(status.stdout).toContain('being written: 1');
    expect(status.stdout).toContain(`left alone: ${foreign.length}`);
  });

  it('the hook’s events, delivered by a hard link, count as pending (not as being written) and leave nothing behind once shipped or quarantined', async () => {
    const home = tempDir();
    const amHome = join(home, '.agentmeter');
    const env = { PATH: process.env['PATH']!, HOME: home, AGENTMETER_HOME: amHome };
    for (const input of [JSON.stringify(event(0)), JSON.stringify(event(1)), '{"not json'])
      expect(spawnSync('sh', [HOOK_SCRIPT, 'claude'], { env, input }).status).toBe(0);
    const tmpDir = join(amHome, 'spool', 'tmp');
    const newDir = join(amHome, 'spool', 'new');
    expect(readdirSync(tmpDir).sort()).toEqual(readdirSync(newDir).sort());
    const before = await runCliAsync(['collect', 'status'], { HOME: home, AGENTMETER_HOME: amHome });
    expect(before.stdout).toContain('pending: 3\nbeing written: 0\n');
    expect(before.stdout).not.toContain('left alone');

    const server = await captureServer();
    const result = await collectOnce(server.url, home, amHome);
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe('shipped 2, quarantined 1\n');
    expect(server.ids).toHaveLength(2);
    expect(readdirSync(newDir)).toEqual([]);
    expect(readdirSync(tmpDir)).toEqual([]);
    const bad = readdirSync(join(amHome, 'spool', 'bad'));
    expect(bad).toHaveLength(2);
    const kept = bad.find((name) => !name.endsWith('.reason'))!;
    expect(statSync(join(amHome, 'spool', 'bad', kept)).nlink).toBe(1);
    expect(mode(join(amHome, 'spool', 'bad', kept))).toBe(0o600);
  });

  it('a malformed file’s content reaches no log line and no .reason file', async () => {
    const home = tempDir();
    const amHome = join(home, '.agentmeter');
    const secret = 'sk_live_51HxSECRETdoNotLeak9f8e7d6c';
    writeSpoolFile(amHome, event(0));
    const newDir = join(amHome, 'spool', 'new');
    const planted = {
      'test-bad-header': `${secret}\nagent=claude\n\n{}`,
      'test-bad-line2': `agentmeter-spool=1\n${secret}\n\n{}`,
      'test-bad-format': `agentmeter-spool=${secret}\n\n{}`,
      'test-bad-agent': `agentmeter-spool=1\nagent=${secret}\n\n{}`,
      'test-bad-json': `agentmeter-spool=1\nagent=claude\n\n${secret} is not json`,
      'test-bad-json2': `agentmeter-spool=1\nagent=claude\n\n{"session_id": ${secret}}`,
      'test-bad-time': `agentmeter-spool=1\nagent=claude\ntime=${secret}\n\n${JSON.stringify(event(1))}`,
    };
    for (const [name, text] of Object.entries(planted)) {
      writeFileSync(join(amHome, 'spool', 'tmp', name), text);
      renameSync(join(amHome, 'spool', 'tmp', name), join(newDir, name));
    }
    const server = await captureServer();
    const result = await collectOnce(server.url, home, amHome, 'trace');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`shipped 1, quarantined ${Object.keys(planted).length}`);
    expect(`${result.stdout}\n${result.stderr}`).not.toContain('sk_live');
    const bad = join(amHome, 'spool', 'bad');
    const reasons = Object.fromEntries(Object.keys(planted).map((name) => [name, readFileSync(join(bad, `${name}.reason`), 'utf8')]));
    for (const reason of Object.values(reasons)) expect(reason).not.toContain('sk_live');
    expect(reasons['test-bad-header']).toBe('malformed header line 1\n');
    expect(reasons['test-bad-line2']).toBe('malformed header line 2\n');
    expect(reasons['test-bad-json']).toMatch(/^event is not JSON/);
    // The files themselves are kept, privately, for whoever looks into them.
    for (const name of Object.keys(planted)) expect(mode(join(bad, name))).toBe(0o600);
    for (const name of Object.keys(planted)) expect(mode(join(bad, `${name}.reason`))).toBe(0o600);
  });
});

describe('local files are private whatever the umask', { timeout: 180_000 }, () => {
  it('the hook under umask 000 creates $AGENTMETER_HOME and the spool 0700 and its file 0600', () => {
    const home = tempDir();
    const amHome = join(home, 'fresh', '.agentmeter');
    const hook = underUmask000('sh', [HOOK_SCRIPT, 'claude'], { AGENTMETER_HOME: amHome }, JSON.stringify(event(0)));
    expect(hook.status).toBe(0);
    const [name] = readdirSync(join(amHome, 'spool', 'new'));
    expect(name).toBeDefined();
    expect(mode(join(amHome, 'spool', 'new', name!))).toBe(0o600);
    for (const dir of [amHome, join(amHome, 'spool'), join(amHome, 'spool', 'tmp'), join(amHome, 'spool', 'new')])
      expect(mode(dir)).toBe(0o700);
  });

  it('the collector under umask 000 keeps its folders 0700 (tightening looser ones) and writes state, machine id and reasons 0600', async () => {
    const home = tempDir();
    const amHome = join(home, '.agentmeter');
    writeSpoolFile(amHome, event(0));
    writeSpoolFile(amHome, 'not json');
    // As an older version under a permissive umask left them.
    for (const dir of [amHome, join(amHome, 'spool'), join(amHome, 'spool', 'new')]) spawnSync('chmod', ['777', dir]);
    const server = await captureServer();
    const result = await runUnderUmask000Async([CLI, 'collect', '--once', '--server', server.url, '--key', 'am_test'], {
      HOME: home,
      AGENTMETER_HOME: amHome,
    });
    expect(result.status).toBe(0);
    expect(server.ids).toHaveLength(1);
    for (const dir of [
      amHome,
      join(amHome, 'spool'),
      join(amHome, 'spool', 'tmp'),
      join(amHome, 'spool', 'new'),
      join(amHome, 'spool', 'bad'),
      join(amHome, 'collector'),
    ])
      expect(mode(dir), dir).toBe(0o700);
    for (const file of [join(amHome, 'collector', 'state.json'), join(amHome, 'machine-id')]) expect(mode(file), file).toBe(0o600);
    const bad = readdirSync(join(amHome, 'spool', 'bad'));
    expect(bad).toHaveLength(2);
    for (const name of bad) expect(mode(join(amHome, 'spool', 'bad', name)), name).toBe(0o600);
  });
});
