// The laptop side: what the bundle holds (no server, no DuckDB, nothing native) and its size, the Node.js
// version check, collector.env, which agents count as found, and uninstall restoring settings bytes.
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { install, uninstall } from '../../collector/install/installer.ts';
import { agentFound } from '../../collector/install/settings.ts';
import { loadConfig } from '../../common/config.ts';
import { machineConfigPath, machineSettings, parseMachineConfig, readMachineConfig } from '../../common/machine-config.ts';
import { MIN_NODE, nodeTooOld } from '../../common/node-version.ts';
import packageJson from '../../package.json' with { type: 'json' };
import { LAPTOP_BUNDLE, LAPTOP_META } from '../../scripts/build-laptop.mjs';
import { tempDir } from '../helpers/tmp.ts';

describe('the laptop bundle (dist/laptop/agentmeter.mjs)', () => {
  const inputs = Object.keys((JSON.parse(readFileSync(LAPTOP_META, 'utf8')) as { inputs: Record<string, unknown> }).inputs);

  it('holds the machine commands and nothing of the server, DuckDB or the pipeline', () => {
    expect(inputs).toContain('cli/laptop.ts');
    expect(inputs).toContain('collector/daemon.ts');
    expect(inputs).toContain('cli/commands/uninstall.ts');
    const ours = inputs.filter((i) => !i.includes('node_modules/'));
    expect(ours.filter((i) => /^(api|pipeline|web|sample-data|bench)\//.test(i))).toEqual([]);
    expect(inputs.filter((i) => /node_modules\/(@duckdb|fastify|@fastify|vite|preact)\//.test(i))).toEqual([]);
    expect(inputs.filter((i) => i.endsWith('.node'))).toEqual([]);
    // The laptop guard is the first module evaluated (after the banner's createRequire).
    expect(inputs.indexOf('cli/laptop-guard.ts')).toBeLessThan(inputs.indexOf('common/config.ts'));
  });

  it('is at most 2 MB', () => {
    expect(statSync(LAPTOP_BUNDLE).size).toBeLessThanOrEqual(2 * 1024 * 1024);
  });
});

describe('the Node.js version check', () => {
  it('refuses an older Node.js in one line, and takes the minimum and anything newer', () => {
    for (const old of ['18.19.1', '20.18.3', 'v20.18.0', '16.0.0', '20'])
      expect(nodeTooOld(old), old).toBe(
        `agentmeter: needs Node.js ${MIN_NODE} or newer, and this is Node.js ${old}; install a current Node.js LTS (https://nodejs.org) and run it again`,
      );
    for (const ok of [MIN_NODE, '20.19.1', '20.20.2', '22.0.0', '24.11.1', 'v25.1.0']) expect(nodeTooOld(ok), ok).toBeUndefined();
  });

  it('is the minimum package.json states', () => {
    expect(packageJson.engines.node).toBe(`>=${MIN_NODE.replace(/\.0$/, '')}`);
  });
});

describe('collector.env', () => {
  it('parses the lines install.sh writes, and names a wrong line', () => {
    expect(parseMachineConfig('# c\nAGENTMETER_SERVER=http://h:8080\nAGENTMETER_API_KEY=am_x\n', 'f')).toEqual({
      AGENTMETER_SERVER: 'http://h:8080',
      AGENTMETER_API_KEY: 'am_x',
    });
    expect(() => parseMachineConfig('AGENTMETER_SERVER=http://h\nPATH=/tmp\n', 'f')).toThrow('f line 2: expected');
    expect(() => parseMachineConfig('AGENTMETER_SERVER=not a url\n', 'f')).toThrow(/^f: AGENTMETER_SERVER/);
  });

  it('is read only when private and not a link; the environment wins over it', () => {
    const home = tempDir();
    const file = machineConfigPath(home);
    expect(readMachineConfig(home)).toEqual({});
    writeFileSync(file, 'AGENTMETER_SERVER=http://file:1\nAGENTMETER_API_KEY=am_file\n', { mode: 0o600 });
    chmodSync(file, 0o644);
    expect(() => readMachineConfig(home)).toThrow(`can be read by others: chmod 600 ${file}`);
    chmodSync(file, 0o600);
    const settings = machineSettings(loadConfig({ HOME: home, AGENTMETER_HOME: home, AGENTMETER_SERVER: 'http://env:2' }));
    expect(settings).toMatchObject({
      AGENTMETER_SERVER: 'http://env:2',
      AGENTMETER_API_KEY: 'am_file',
      fromFile: { server: false, key: true },
    });
    const other = tempDir();
    symlinkSync(file, machineConfigPath(other));
    expect(() => readMachineConfig(other)).toThrow('is a symbolic link');
  });
});

describe('agents found on the machine', () => {
  it('by their settings folder or their command on PATH', () => {
    const home = tempDir();
    const path = tempDir();
    expect(agentFound('claude', home, path)).toBe(false);
    mkdirSync(join(home, '.claude'));
    expect(agentFound('claude', home, path)).toBe(true);
    writeFileSync(join(path, 'droid'), '#!/bin/sh\n', { mode: 0o755 });
    expect(agentFound('droid', home, `/nonexistent:${path}`)).toBe(true);
    chmodSync(join(path, 'droid'), 0o644);
    expect(agentFound('droid', home, path)).toBe(false);
  });
});

describe('uninstall puts the settings file back as it was', () => {
  const target = (home: string) => ({
    agent: 'claude' as const,
    home,
    agentmeterHome: join(home, '.agentmeter'),
    defaultAgentmeterHome: true,
  });

  it('byte for byte, whatever its formatting', () => {
    const home = tempDir();
    mkdirSync(join(home, '.claude'));
    const file = join(home, '.claude', 'settings.json');
    const before =
      '{\n    "model": "opus",\n    "hooks": {\n        "Stop": [ { "hooks": [ { "type": "command", "command": "say done" } ] } ]\n    }\n}';
    writeFileSync(file, before);
    install(target(home));
    expect(readFileSync(file, 'utf8')).not.toBe(before);
    uninstall(target(home));
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  it('removes a file the install created, and keeps a change made since the install', () => {
    const home = tempDir();
    const file = join(home, '.claude', 'settings.json');
    install(target(home));
    uninstall(target(home));
    expect(existsSync(file)).toBe(false);

    install(target(home));
    const edited = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, JSON.stringify({ ...edited, model: 'sonnet' }));
    uninstall(target(home));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ model: 'sonnet' });
  });

  it('backs up twice in the same millisecond without failing (a counter follows the time)', () => {
    const home = tempDir();
    const file = join(home, '.claude', 'settings.json');
    mkdirSync(join(home, '.claude'));
    writeFileSync(file, '{"model": "opus"}\n');
    vi.useFakeTimers({ now: new Date('2026-11-26T07:42:21.003Z'), toFake: ['Date'] });
    try {
      const installed = install(target(home));
      const removed = uninstall(target(home));
      expect(installed.backup).toBe(`${file}.agentmeter-backup-2026-11-26T07-42-21.003Z`);
      expect(removed.backup).toBe(`${file}.agentmeter-backup-2026-11-26T07-42-21.003Z-001`);
    } finally {
      vi.useRealTimers();
    }
    expect(readFileSync(file, 'utf8')).toBe('{"model": "opus"}\n');
  });
});
