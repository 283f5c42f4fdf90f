// No part of a file name that is not a known extension leaves the machine (docs/metrics.md §5 "Lines"): the
// real collector drains hook events of Claude Code writing files named `acme-layoffs-q3`,
// `ACQUISITION_TARGETS_2027` and `board.merger-plan` (and ordinary ones) in a real git repository whose
// commit then lands; a proxy keeps every request body it sends to a real server. Every body, and every
// table the server stores after its batch, is searched: the private names appear nowhere, and each file's
// `ext` is a known extension (or '') and each `name` a file name the language table knows.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { Collector } from '../../collector/daemon.ts';
import { createLogger } from '../../common/logger.ts';
import { languageMap } from '../../pipeline/languages.ts';
import { testServer } from '../helpers/server.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const PRIVATE = ['layoffs', 'acquisition', 'targets_2027', 'merger', 'board.'];
const FILES = ['acme-layoffs-q3', 'ACQUISITION_TARGETS_2027', 'board.merger-plan', 'src/cart.ts', 'Makefile'];

let proxy: Server | undefined;
afterAll(async () => {
  if (proxy) await new Promise((r) => proxy!.close(r));
});

describe('file names on the wire and in the store', () => {
  it('only known extensions and known file names leave the machine', async () => {
    const server = await testServer();
    const org = await server.seedOrg('Privacy');
    const email = 'member@privacy.example.com';
    // A proxy to the real server that keeps every request body.
    const bodies: string[] = [];
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const raw = Buffer.concat(chunks);
        bodies.push(req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8'));
        const answer = await server.app.inject({
          method: req.method as 'GET' | 'POST',
          url: req.url!,
          headers: req.headers as Record<string, string>,
          ...(raw.length ? { payload: raw } : {}),
        });
        res.writeHead(answer.statusCode, { 'content-type': answer.headers['content-type'] as string }).end(answer.body);
      });
    });
    await new Promise<void>((r) => proxy!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;

    // A real repository: a bare origin, the developer's clone; the agent writes the files, the developer pushes.
    const dir = tempDir();
    const home = join(dir, 'home');
    const origin = join(dir, 'origin.git');
    const work = join(home, 'src', 'shop');
    const env = { PATH: process.env['PATH']!, HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
    const git = (args: string[]) =>
      execFileSync('git', args, {
        cwd: work,
        env: { ...env, GIT_AUTHOR_NAME: 'M', GIT_AUTHOR_EMAIL: email, GIT_COMMITTER_NAME: 'M', GIT_COMMITTER_EMAIL: email },
      });
    mkdirSync(home, { recursive: true });
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin], { env });
    execFileSync('git', ['clone', '--quiet', origin, work], { env });
    mkdirSync(join(work, 'src'));
    git(['config', 'user.email', email]);
    const agentmeterHome = join(home, '.agentmeter');
    const now = Date.now();
    FILES.forEach((file, i) => {
      const content = `line one of ${i}\nline two of ${i}\n`;
      writeFileSync(join(work, file), content);
      for (const event of ['PreToolUse', 'PostToolUse'])
        writeSpoolFile(
          agentmeterHome,
          {
            session_id: 's1',
            cwd: work,
            hook_event_name: event,
            tool_name: 'Write',
            tool_input: { file_path: join(work, file), content },
            ...(event === 'PostToolUse' ? { tool_response: { type: 'create', filePath: join(work, file) } } : {}),
          },
          {},
          now - 60_000 + i * 1000,
        );
    });
    git(['add', '-A']);
    git(['commit', '--quiet', '-m', 'the plan']);
    git(['push', '--quiet', 'origin', 'HEAD:main']);

    const collector = new Collector({ server: url, apiKey: org.users.member.key, agentmeterHome, home, log, maxAttempts: 1 });
    await collector.drain();
    await collector.drain();
    await collector.close();
    await server.services.runBatch({ trigger: 'cli', log });

    const shipped = bodies.join('\n');
    // The commit and the edits did ship (the test would prove nothing otherwise).
    expect(shipped).toMatch(/"kind":"commit"/);
    expect(shipped).toMatch(/"ext":"ts"/);
    for (const word of PRIVATE) expect(shipped.toLowerCase()).not.toContain(word);
    const known = languageMap();
    const files = bodies
      .flatMap((b) => b.split('\n'))
      .filter((l) => l.startsWith('{'))
      .flatMap((l) => {
        const r = JSON.parse(l) as { files?: { ext: string; name?: string }[]; edits?: { ext: string; name?: string }[] };
        return [...(r.files ?? []), ...(r.edits ?? [])];
      });
    expect(files.length).toBeGreaterThanOrEqual(FILES.length * 2);
    for (const f of files) {
      if (f.ext) expect(known.has(`ext:${f.ext}`), f.ext).toBe(true);
      if (f.name !== undefined) expect(known.has(`name:${f.name}`), f.name).toBe(true);
    }
    // Every table the server keeps.
    const tables = await server.db.all<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'main'",
    );
    expect(tables.length).toBeGreaterThan(10);
    let stored = '';
    for (const { name } of tables)
      stored += JSON.stringify(await server.db.all(`SELECT * FROM "${name}"`), (_k, v) => (typeof v === 'bigint' ? Number(v) : v));
    expect(stored).toMatch(/TypeScript/);
    for (const word of PRIVATE) expect(stored.toLowerCase()).not.toContain(word);
    await server.close();
  }, 120_000);
});
