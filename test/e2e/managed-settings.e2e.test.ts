// `agentmeter hooks install|uninstall|status --managed` through the CLI, on a copy of a realistic managed
// policy file (--settings points at a temporary path instead of /etc/claude-code).
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT, runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIXTURE = join(ROOT, 'test', 'fixtures', 'managed', 'managed-settings.json');

describe('hooks --managed', { timeout: 120_000 }, () => {
  it('dry-run, install, status, uninstall on an existing policy file, keeping every other key', () => {
    const dir = tempDir();
    const file = join(dir, 'etc', 'claude-code', 'managed-settings.json');
    const hookPath = join(dir, 'lib', 'agentmeter-hook.sh');
    mkdirSync(join(dir, 'etc', 'claude-code'), { recursive: true });
    copyFileSync(FIXTURE, file);
    const flags = ['--agent', 'claude', '--managed', '--settings', file, '--hook-path', hookPath];
    const env = { HOME: join(dir, 'home') };

    const dry = runCli(['hooks', 'install', ...flags, '--dry-run'], env);
    expect(dry.status, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`+ UserPromptSubmit: '${hookPath}' claude prompt`);
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(FIXTURE, 'utf8'));
    expect(existsSync(hookPath)).toBe(false);

    const installed = runCli(['hooks', 'install', ...flags], env);
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toContain('backup: ');
    expect(statSync(hookPath).mode & 0o777).toBe(0o755);
    const after = JSON.parse(readFileSync(file, 'utf8'));
    const before = JSON.parse(readFileSync(FIXTURE, 'utf8'));
    expect({ ...after, hooks: undefined }).toEqual({ ...before, hooks: undefined });
    expect(JSON.stringify(after.hooks.PreToolUse)).toContain('/usr/local/bin/corp-bash-guard');

    const status = runCli(['hooks', 'status', ...flags, '--json'], env);
    expect(status.status, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout)).toMatchObject({ file, missingEvents: [], outdatedEvents: [], scriptInstalled: true });

    const again = runCli(['hooks', 'install', ...flags], env);
    // The policy exports OpenTelemetry to the company's own endpoint: kept (docs/metrics.md §11).
    expect(again.stdout).toBe(
      `${file}: nothing to change\nclaude: you export OpenTelemetry elsewhere (${file}); kept, so edit decisions are not received\n`,
    );

    const removed = runCli(['hooks', 'uninstall', ...flags], env);
    expect(removed.status, removed.stderr).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(before);
  });

  it('refuses a malformed policy file, and --hook-path without --managed', () => {
    const dir = tempDir();
    const file = join(dir, 'settings.json');
    writeFileSync(file, '{"permissions": ');
    const refused = runCli(['hooks', 'install', '--agent', 'droid', '--managed', '--settings', file, '--hook-path', join(dir, 'h.sh')], {
      HOME: dir,
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(`agentmeter: ${file} is not JSON`);
    expect(readFileSync(file, 'utf8')).toBe('{"permissions": ');
    const misuse = runCli(['hooks', 'install', '--agent', 'claude', '--hook-path', join(dir, 'h.sh')], { HOME: dir });
    expect(misuse.status).toBe(1);
    expect(misuse.stderr).toBe('agentmeter: --hook-path applies to --managed installs only\n');
  });
});
