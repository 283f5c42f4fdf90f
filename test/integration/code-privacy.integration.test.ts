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
import { languageMap } from '../../common/languages.ts';
import { createLogger } from '../../common/logger.ts';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';
import { writeSpoolFile } from '../helpers/spool.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test', level: 'silent' });
const PRIVATE = ['layoffs', 'acquisition', 'targets_2027', 'merger', 'board.'];
const FILES = ['acme-layoffs-q3', 'ACQUISITION_TARGETS_2027', 'board.merger-plan', 'src/cart.ts', 'Makefile'];

const proxies: Server[] = [];
afterAll(async () => {
  await Promise.all(proxies.map((p) => new Promise((r) => p.close(r))));
});

/** A proxy to an in-process server that keeps every request body (gunzipped). */
async function proxyTo(server: TestServer): Promise<{ url: string; bodies: string[] }> {
  const bodies: string[] = [];
  const proxy = createServer((req, res) => {
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
  proxies.push(proxy);
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, bodies };
}

describe('file names on the wire and in the store', () => {
  it('only known extensions and known file names leave the machine', async () => {
    const server = await testServer();
    const org = await server.seedOrg('Privacy');
    const email = 'member@privacy.example.com';
    const { url, bodies } = await proxyTo(server);

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

describe('a squash merge the code host authored', () => {
  it("lands for the user once an owner gives them the host's no-reply address, with its agent lines", async () => {
    const server = await testServer();
    const org = await server.seedOrg('Squash');
    const email = 'member@squash.example.com';
    const noreply = '4242+member@users.noreply.github.com';
    const { url } = await proxyTo(server);
    const dir = tempDir();
    const home = join(dir, 'home');
    const origin = join(dir, 'origin.git');
    const work = join(home, 'src', 'shop');
    const host = join(dir, 'host');
    const env = { PATH: process.env['PATH']!, HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
    const git = (cwd: string, args: string[], author = email) =>
      execFileSync('git', args, {
        cwd,
        env: { ...env, GIT_AUTHOR_NAME: 'M', GIT_AUTHOR_EMAIL: author, GIT_COMMITTER_NAME: 'GitHub', GIT_COMMITTER_EMAIL: author },
      });
    mkdirSync(home, { recursive: true });
    execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', origin], { env });
    execFileSync('git', ['clone', '--quiet', origin, work], { env });
    git(work, ['config', 'user.email', email]);
    writeFileSync(join(work, 'README.md'), '# Shop\n');
    git(work, ['add', '-A']);
    git(work, ['commit', '--quiet', '-m', 'start']);
    git(work, ['push', '--quiet', 'origin', 'main']);
    const agentmeterHome = join(home, '.agentmeter');
    const content = `${Array.from({ length: 6 }, (_, i) => `export const price${i} = ${i} * 100;`).join('\n')}\n`;
    const path = join(work, 'price.ts');
    writeFileSync(path, content);
    writeSpoolFile(
      agentmeterHome,
      {
        session_id: 's1',
        cwd: work,
        hook_event_name: 'PostToolUse',
        tool_name: 'Write',
        tool_input: { file_path: path, content },
        tool_response: { type: 'create', filePath: path },
      },
      {},
      Date.now() - 120_000,
    );
    // The branch is pushed; the host squash-merges it, authored by the no-reply address.
    git(work, ['checkout', '--quiet', '-b', 'feature']);
    git(work, ['add', '-A']);
    git(work, ['commit', '--quiet', '-m', 'prices']);
    git(work, ['push', '--quiet', 'origin', 'feature']);
    execFileSync('git', ['clone', '--quiet', origin, host], { env });
    git(host, ['merge', '--quiet', '--squash', 'origin/feature'], noreply);
    git(host, ['commit', '--quiet', '-m', 'Prices (#1)'], noreply);
    git(host, ['push', '--quiet', 'origin', 'main'], noreply);
    git(work, ['fetch', '--quiet', 'origin']);
    const squash = execFileSync('git', ['rev-parse', 'origin/main'], { cwd: work, encoding: 'utf8' }).trim();

    const added = await server.app.inject({
      method: 'POST',
      url: `/api/v0/admin/users/${org.users.member.id}/aliases`,
      headers: bearer(org.users.owner.key),
      payload: { email: noreply },
    });
    expect(added.statusCode, added.body).toBe(201);
    const collector = new Collector({ server: url, apiKey: org.users.member.key, agentmeterHome, home, log, maxAttempts: 1 });
    await collector.drain();
    await collector.drain();
    await collector.close();
    const day = new Date().toISOString().slice(0, 10);
    const listed = await server.app.inject({
      method: 'GET',
      url: `/api/v0/code/commits?startDate=${day}&endDate=${day}`,
      headers: bearer(org.users.member.key),
    });
    expect(listed.statusCode, listed.body).toBe(200);
    const commits = listed.json().data as { commit: string; author: string; agent_lines: number; lines_added: number }[];
    expect(commits.find((c) => c.commit === squash)).toMatchObject({ author: noreply, lines_added: 6, agent_lines: 6 });
    await server.close();
  }, 120_000);
});
