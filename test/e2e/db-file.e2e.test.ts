// The embedded database is only ever a DuckDB database, and nothing loads from the network (issue 11,
// item 6): every command that takes --db refuses another kind of file and leaves it as it was; no
// connection installs or loads an extension at run time; the database and its WAL are private whatever
// the umask.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from '../../common/db/duckdb.ts';
import { lastLine, runCliAsync } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

/** The first page of a SQLite database: its header is what made DuckDB reach for its sqlite extension. */
const sqliteFile = () => Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.from([0x10, 0x00, 0x01, 0x01]), Buffer.alloc(4076)]);

describe('--db names a DuckDB database or a path that does not exist yet', { timeout: 300_000 }, () => {
  it('a JSON, CSV, SQLite or empty file is refused by every command with one clear line and a non-zero exit, and left unchanged', async () => {
    const dir = tempDir();
    const files: Record<string, Buffer> = {
      'settings.json': Buffer.from('{"theme": "dark", "editor.fontSize": 14}\n'),
      'notes.csv': Buffer.from('id,note\n1,remember the milk\n'),
      'x.sqlite': sqliteFile(),
      'empty.duckdb': Buffer.alloc(0),
    };
    for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
    const runs: [string, string[]][] = [
      ['settings.json', ['orgs', 'add', '--name', 'Acme']],
      ['notes.csv', ['serve', '--port', '0']],
      ['x.sqlite', ['serve', '--port', '0']],
      ['empty.duckdb', ['users', 'add', '--org', 'org_0000000000000000', '--email', 'a@example.com', '--role', 'member']],
      ['settings.json', ['keys', 'list', '--org', 'org_0000000000000000', '--user', 'a@example.com']],
      ['notes.csv', ['batch']],
      ['x.sqlite', ['demo']],
    ];
    // Two at a time: each is a Node start-up, and there are two cores.
    for (let i = 0; i < runs.length; i += 2) {
      const pair = runs.slice(i, i + 2);
      const results = await Promise.all(pair.map(([file, args]) => runCliAsync([...args, '--db', join(dir, file)])));
      results.forEach((result, j) => {
        const [file, args] = pair[j]!;
        const what = `${args.join(' ')} --db ${file}`;
        expect(result.status, what).not.toBe(0);
        expect(result.stderr.trim().split('\n'), what).toHaveLength(1);
        expect(result.stderr, what).toMatch(
          new RegExp(
            `${join(dir, file).replaceAll('.', '\\.')} is (not a DuckDB database|an empty file).*--db names a DuckDB database file`,
          ),
        );
      });
    }
    for (const [name, bytes] of Object.entries(files)) {
      expect(readFileSync(join(dir, name)).equals(bytes), name).toBe(true);
      expect(existsSync(join(dir, `${name}.wal`)), `${name}.wal`).toBe(false);
    }
  });

  it('a path with a question mark is refused with one clear line, and nothing is made there', async () => {
    const dir = tempDir();
    const path = join(dir, 'team?b.duckdb');
    const result = await runCliAsync(['orgs', 'add', '--db', path, '--name', 'Acme']);
    expect(result.status).not.toBe(0);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(`${path} holds a '?', which DuckDB reads as the start of connection options`);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a path that does not exist yet becomes a DuckDB database, and opens again', async () => {
    const path = join(tempDir(), 'new.duckdb');
    const added = await runCliAsync(['orgs', 'add', '--db', path, '--name', 'Acme']);
    expect(added.status, added.stderr).toBe(0);
    expect(lastLine(added.stdout)).toMatch(/^org_[0-9a-f]{16}$/);
    expect(readFileSync(path).subarray(8, 12).toString()).toBe('DUCK');
    const listed = await runCliAsync(['orgs', 'list', '--db', path]);
    expect(listed.status, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(lastLine(added.stdout));
  });
});

describe('a --db path with no file', { timeout: 300_000 }, () => {
  it("is refused by the commands that read or change an organization's data, and nothing is made there", async () => {
    const dir = tempDir();
    const path = join(dir, 'typo.duckdb');
    for (const args of [
      ['users', 'list', '--org', 'org_0000000000000000'],
      ['keys', 'list', '--org', 'org_0000000000000000', '--user', 'a@b.example.com'],
      ['teams', 'list', '--org', 'org_0000000000000000'],
      ['scim', 'token', 'list', '--org', 'org_0000000000000000'],
      ['batch'],
    ]) {
      const result = await runCliAsync([...args, '--db', path]);
      expect(result.status, args.join(' ')).not.toBe(0);
      expect(result.stderr, args.join(' ')).toContain(`no database at ${path}`);
    }
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe('nothing is installed or loaded at run time', () => {
  it('extension auto-install and auto-load are off; a query that needs an extension fails with DuckDB’s error; read_json works (linked in)', async () => {
    const dir = tempDir();
    const db = await openDb(join(dir, 'ext.duckdb'), { migrate: false });
    try {
      const [settings] = await db.all<{ install: boolean; load: boolean; community: boolean }>(
        `SELECT current_setting('autoinstall_known_extensions') AS install, current_setting('autoload_known_extensions') AS load,
                current_setting('allow_community_extensions') AS community`,
      );
      expect(settings).toEqual({ install: false, load: false, community: false });
      writeFileSync(join(dir, 'x.sqlite'), sqliteFile());
      await expect(db.all('SELECT * FROM sqlite_scan($path, $table)', { path: join(dir, 'x.sqlite'), table: 't' })).rejects.toThrow(
        /sqlite_scanner extension/,
      );
      const [sqlite] = await db.all<{ loaded: boolean; installed: boolean }>(
        "SELECT loaded, installed FROM duckdb_extensions() WHERE extension_name = 'sqlite_scanner'",
      );
      expect(sqlite).toEqual({ loaded: false, installed: false });
      // The json extension (read_json, used by ingest) is part of the build, so it works with loading off.
      writeFileSync(join(dir, 'rows.json'), '{"a":1}\n{"a":2}\n');
      expect(await db.all('SELECT sum(a)::INTEGER AS total FROM read_json($path)', { path: join(dir, 'rows.json') })).toEqual([
        { total: 3 },
      ]);
    } finally {
      await db.close();
    }
  });
});

describe('the database and its WAL are private whatever the umask', () => {
  let umask: number | undefined;
  afterEach(() => {
    if (umask !== undefined) process.umask(umask);
    umask = undefined;
  });

  it('under umask 000 the file, the WAL, and a WAL made again after a checkpoint are 0600', async () => {
    umask = process.umask(0);
    const path = join(tempDir(), 'private.duckdb');
    const db = await openDb(path);
    try {
      await db.run('CREATE TABLE notes (n INTEGER)');
      await db.run('INSERT INTO notes VALUES (1)');
      expect(existsSync(`${path}.wal`)).toBe(true);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(`${path}.wal`).mode & 0o777).toBe(0o600);
      // A checkpoint removes the WAL; the next write makes a new one, which chmod at open could not cover.
      await db.run('CHECKPOINT');
      await db.run('INSERT INTO notes VALUES (2)');
      expect(existsSync(`${path}.wal`)).toBe(true);
      expect(statSync(`${path}.wal`).mode & 0o777).toBe(0o600);
    } finally {
      await db.close();
    }
  });
});
