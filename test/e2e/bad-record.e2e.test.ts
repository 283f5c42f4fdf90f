// One bad record never stalls the others, end to end with real processes: a hook payload whose tool name
// holds a lone UTF-16 surrogate (a JSON escape the agent wrote) goes through the hook script, the
// spool and `agentmeter collect --once` to a real server. The events around it arrive, the bad one waits
// in spool/bad/ with the server's reason, and `collect --once` exits 0: nothing is left to retry.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../../common/db/duckdb.ts';
import * as p from '../helpers/payloads.ts';
import { HOOK_SCRIPT, runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const amHome = join(home, 'am');
const env = { HOME: home, AGENTMETER_HOME: amHome };
let server: ServerProcess;
let key: string;

/** The real hook script, run as the agent runs it: the payload on stdin. */
function fire(payload: Record<string, unknown>): void {
  // JSON.stringify writes a lone surrogate as the escape \udfff: the payload is plain ASCII JSON.
  const ran = spawnSync('sh', [HOOK_SCRIPT, 'claude'], {
    input: JSON.stringify(payload),
    env: { PATH: process.env['PATH']!, HOME: home, AGENTMETER_HOME: amHome },
  });
  expect(ran.status).toBe(0);
}

const spool = (sub: string) => (existsSync(join(amHome, 'spool', sub)) ? readdirSync(join(amHome, 'spool', sub)).sort() : []);

beforeAll(async () => {
  mkdirSync(home, { recursive: true });
  ({ key } = await seedAccount(db, 'member', 'dev@example.com'));
  // What a server killed with kill -9 in the middle of a batch leaves beside the database: raw events.
  mkdirSync(join(`${db}.ingest`, '99999-killed'), { recursive: true });
  writeFileSync(join(`${db}.ingest`, '99999-killed', '3-events.ndjson'), '{"kind":"event","id":"raw"}\n');
  server = await startServerProcess(db);
});
afterAll(async () => {
  await server?.stop();
});

describe('a record the store cannot take', () => {
  it('the server removed the temporary files a killed server left', () => {
    expect(readdirSync(`${db}.ingest`).filter((name) => name.startsWith('99999-'))).toEqual([]);
  });

  it('is quarantined with its reason while the events around it ship; collect --once exits 0', async () => {
    const c = { session_id: 'bad1', cwd: join(home, 'repo'), transcript_path: join(home, 'none.jsonl') };
    fire(p.sessionStart(c));
    fire(p.preToolUse('Read', { file_path: '/repo/a.ts' }, c));
    fire(p.preToolUse('Bash\udfff', { command: 'ls' }, c));
    fire(p.postToolUse('Read', { file_path: '/repo/a.ts' }, {}, c));
    fire(p.stop(c));
    const spooled = spool('new');
    expect(spooled).toHaveLength(5);

    const shipped = runCli(['collect', '--once', '--server', server.url, '--key', key], env);
    expect(shipped.status, shipped.stderr).toBe(0);
    expect(shipped.stdout).toContain('shipped 4, quarantined 1');
    expect(spool('new')).toEqual([]);
    const bad = spool('bad');
    expect(bad).toHaveLength(2);
    const [file, reasonFile] = bad as [string, string];
    expect(reasonFile).toBe(`${file}.reason`);
    const reason = readFileSync(join(amHome, 'spool', 'bad', reasonFile), 'utf8');
    expect(reason).toMatch(/^server rejected: tool_name: not well-formed Unicode/);
    // The reason says why; it copies nothing of the event.
    expect(reason).not.toMatch(/Bash|ls|bad1/);
    // The quarantined file is the event as the hook wrote it, kept for a person to look at.
    expect(readFileSync(join(amHome, 'spool', 'bad', file), 'utf8')).toContain('"tool_name":"Bash\\udfff"');

    // Later events are not held up either, and a second run has nothing left to retry.
    fire(p.sessionEnd('other', c));
    const again = runCli(['collect', '--once', '--server', server.url, '--key', key], env);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toContain('shipped 1, quarantined 0');
    expect(spool('new')).toEqual([]);
    expect(spool('bad')).toEqual(bad);

    expect(await server.stop()).toBe(0);
    const conn = await openDb(db, { migrate: false });
    try {
      const events = await conn.all<{ event: string; tool_name: string | null }>('SELECT event, tool_name FROM events ORDER BY ts, id');
      expect(events.map((e) => e.event).sort()).toEqual(['PostToolUse', 'PreToolUse', 'SessionEnd', 'SessionStart', 'Stop']);
      expect(events.find((e) => e.event === 'PreToolUse')!.tool_name).toBe('Read');
    } finally {
      await conn.close();
    }
    // A server that stopped in order leaves no temporary files behind.
    expect(readdirSync(`${db}.ingest`)).toEqual([]);
  });
});
