// The agents' files the collector reads are named by the agents' events, so a path there can be anything:
// only a regular file is read. A FIFO would hold the collector's one thread on its first read (for good:
// the event stays in the spool, and every start would hang on it again), so the reads run in a child
// process here, which a regression would leave hanging until it is killed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.ts';

describe("the agents' files", () => {
  it('a FIFO, a folder and a missing path read as unreadable, at once; a file reads', () => {
    const dir = tempDir();
    const fifo = join(dir, 'transcript.jsonl');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    mkdirSync(join(dir, 'folder.json'));
    writeFileSync(join(dir, 'real.jsonl'), '{"a":1}\n{"b":2');
    const script = join(dir, 'read.mts');
    writeFileSync(
      script,
      `import { readNewLines } from ${JSON.stringify(join(process.cwd(), 'collector/transcript.ts'))};\n` +
        `import { readRegularFile } from ${JSON.stringify(join(process.cwd(), 'collector/regular-file.ts'))};\n` +
        `const paths = ${JSON.stringify([fifo, join(dir, 'folder.json'), join(dir, 'missing.jsonl'), join(dir, 'real.jsonl')])};\n` +
        'console.log(JSON.stringify(paths.map((p) => [readNewLines(p) ?? null, readRegularFile(p, { followLinks: true }) ?? null])));\n',
    );

    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), encoding: 'utf8', timeout: 20_000 });

    expect(child.signal, 'the reads hung').toBeNull();
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual([
      [null, null],
      [null, null],
      [null, null],
      [{ lines: ['{"a":1}'], nextOffset: 8, tail: expect.any(String), restarted: false, skipped: 0 }, '{"a":1}\n{"b":2'],
    ]);
  });

  it("a work tree's settings file that is a FIFO, or a link to one, is not read; a user's settings linked from dotfiles are", () => {
    const dir = tempDir();
    const home = join(dir, 'home');
    const repo = join(dir, 'repo');
    mkdirSync(join(home, '.claude'), { recursive: true });
    mkdirSync(join(repo, '.claude'), { recursive: true });
    const hooks = { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'user-hook' }] }] };
    writeFileSync(join(dir, 'dotfiles-claude.json'), JSON.stringify({ hooks }));
    symlinkSync(join(dir, 'dotfiles-claude.json'), join(home, '.claude', 'settings.json'));
    // A cloned repository decides what its .claude/ holds: a link to a FIFO (or to /dev/stdin) made any
    // read of it wait for a writer, holding the collector for good.
    expect(spawnSync('mkfifo', [join(dir, 'fifo'), join(repo, '.claude', 'settings.json')]).status).toBe(0);
    symlinkSync(join(dir, 'fifo'), join(repo, '.claude', 'settings.local.json'));
    const script = join(dir, 'ran.mts');
    writeFileSync(
      script,
      `import { HookConfigCache } from ${JSON.stringify(join(process.cwd(), 'collector/hooks-ran.ts'))};\n` +
        `console.log(JSON.stringify(new HookConfigCache(${JSON.stringify(home)}).ran('claude', ${JSON.stringify(repo)}, 'PostToolUse', 'Bash')));\n`,
    );

    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), encoding: 'utf8', timeout: 20_000 });

    expect(child.signal, 'the reads hung').toBeNull();
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout)).toEqual([{ event: 'PostToolUse', matcher: 'Bash', command: 'user-hook' }]);
  });
  it('the installer refuses a settings or telemetry file that is a FIFO, or a link to one, without reading it', () => {
    const dir = tempDir();
    const home = join(dir, 'home');
    mkdirSync(join(home, '.claude'), { recursive: true });
    mkdirSync(join(home, '.codex'), { recursive: true });
    expect(spawnSync('mkfifo', [join(dir, 'fifo'), join(home, '.codex', 'config.toml')]).status).toBe(0);
    symlinkSync(join(dir, 'fifo'), join(home, '.claude', 'settings.json'));
    const script = join(dir, 'install.mts');
    const target = (agent: string) =>
      `{ agent: '${agent}', home: ${JSON.stringify(home)}, agentmeterHome: ${JSON.stringify(join(home, '.agentmeter'))}, defaultAgentmeterHome: true, otlpEndpoint: 'http://127.0.0.1:4318' }`;
    writeFileSync(
      script,
      `import { install, uninstall } from ${JSON.stringify(join(process.cwd(), 'collector/install/installer.ts'))};
` +
        `const said = [];
` +
        `for (const run of [() => install(${target('claude')}), () => uninstall(${target('claude')}), () => install(${target('codex')}), () => uninstall(${target('codex')})])
` +
        `  try { run(); said.push('done'); } catch (error) { said.push(error.message); }
` +
        `console.log(JSON.stringify(said));
`,
    );

    const child = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: process.cwd(), encoding: 'utf8', timeout: 20_000 });

    expect(child.signal, 'the reads hung').toBeNull();
    expect(child.status, child.stderr).toBe(0);
    const settings = `${join(home, '.claude', 'settings.json')} is not a regular file`;
    const config = `${join(home, '.codex', 'config.toml')} is not a regular file`;
    expect(JSON.parse(child.stdout)).toEqual([
      expect.stringContaining(settings),
      expect.stringContaining(settings),
      expect.stringContaining(config),
      expect.stringContaining(config),
    ]);
  });
});
