// `hooks install` turns each agent's own OpenTelemetry export on (docs/metrics.md §11) in the files the agents
// read, keeping what the user had, and `hooks uninstall` restores the files byte for byte: on real settings
// files in a temporary home.
import { existsSync, lstatSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { withCodexOtel, withoutCodexOtel } from '../../collector/agents/codex/telemetry.ts';
import { type InstallTarget, install, uninstall } from '../../collector/install/installer.ts';
import type { Agent } from '../../common/agents.ts';
import { tempDir } from '../helpers/tmp.ts';

const ENDPOINT = 'http://127.0.0.1:4318';

function setup(agent: Agent, files: Record<string, string>): InstallTarget {
  const home = tempDir();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(home, path, '..'), { recursive: true });
    writeFileSync(join(home, path), text);
  }
  return { agent, home, agentmeterHome: join(home, '.agentmeter'), defaultAgentmeterHome: true, otlpEndpoint: ENDPOINT };
}

const read = (t: InstallTarget, path: string) => readFileSync(join(t.home, path), 'utf8');

describe("Claude Code's env", () => {
  const settings = `{\n  "model": "opus",\n  "env": { "ANTHROPIC_LOG": "debug" },\n  "permissions": { "allow": ["Bash(npm test)"] }\n}\n`;

  it('gets the telemetry variables beside the user own, and loses only ours on uninstall', () => {
    const t = setup('claude', { '.claude/settings.json': settings });
    const result = install(t);
    expect(result.telemetry).toEqual({ file: join(t.home, '.claude/settings.json'), outcome: 'added' });
    const json = JSON.parse(read(t, '.claude/settings.json'));
    expect(json.env).toEqual({
      ANTHROPIC_LOG: 'debug',
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_METRICS_EXPORTER: 'otlp',
      OTEL_LOGS_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT,
      OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: 'delta',
    });
    expect(json.model).toBe('opus');
    expect(json.hooks.PostToolUse).toBeDefined();
    // Again: nothing more to do.
    expect(install(t)).toMatchObject({ written: false, telemetry: { outcome: 'already' } });
    expect(uninstall(t)).toMatchObject({ written: true, telemetry: { outcome: 'removed' } });
    expect(read(t, '.claude/settings.json')).toBe(settings);
  });

  it("keeps the user's own telemetry", () => {
    const own = `{"env": {"CLAUDE_CODE_ENABLE_TELEMETRY": "1", "OTEL_EXPORTER_OTLP_ENDPOINT": "https://otel.corp.example:4318"}}\n`;
    const t = setup('claude', { '.claude/settings.json': own });
    expect(install(t).telemetry?.outcome).toBe('kept-yours');
    expect(JSON.parse(read(t, '.claude/settings.json')).env).toEqual({
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.corp.example:4318',
    });
    expect(uninstall(t).telemetry?.outcome).toBe('none');
    expect(read(t, '.claude/settings.json')).toBe(own);
  });

  it('--no-otel (no endpoint) installs the hook only', () => {
    const t = setup('claude', { '.claude/settings.json': settings });
    const { otlpEndpoint: _, ...hooksOnly } = t;
    expect(install(hooksOnly).telemetry).toBeUndefined();
    expect(JSON.parse(read(t, '.claude/settings.json')).env).toEqual({ ANTHROPIC_LOG: 'debug' });
  });
});

describe("Gemini CLI's and Qwen Code's telemetry", () => {
  for (const [agent, dir] of [
    ['gemini', '.gemini'],
    ['qwen', '.qwen'],
  ] as const) {
    it(`${agent}: the telemetry object, and the file as it was after uninstall`, () => {
      const settings = `{\n  "theme": "GitHub",\n  "general": { "vimMode": true }\n}\n`;
      const t = setup(agent, { [`${dir}/settings.json`]: settings });
      expect(install(t).telemetry?.outcome).toBe('added');
      expect(JSON.parse(read(t, `${dir}/settings.json`)).telemetry).toEqual({
        enabled: true,
        target: 'local',
        otlpEndpoint: ENDPOINT,
        otlpProtocol: 'http',
        logPrompts: false,
      });
      uninstall(t);
      expect(read(t, `${dir}/settings.json`)).toBe(settings);
    });
  }

  it("keeps a user's telemetry object (here: turned off on purpose)", () => {
    const settings = `{"telemetry": {"enabled": false}}\n`;
    const t = setup('gemini', { '.gemini/settings.json': settings });
    expect(install(t).telemetry?.outcome).toBe('kept-yours');
    uninstall(t);
    expect(read(t, '.gemini/settings.json')).toBe(settings);
  });
});

describe("Codex CLI's config.toml", () => {
  const config = `# my Codex settings\nmodel = "gpt-5-codex"\n\n[profiles.fast]\nmodel = "gpt-5-mini" # quick\n`;

  it('gets an [otel] table after the user text, and is byte for byte the same after uninstall', () => {
    const t = setup('codex', { '.codex/config.toml': config });
    const installed = install(t).telemetry;
    expect(installed).toEqual({ file: join(t.home, '.codex/config.toml'), outcome: 'added', backup: expect.any(String) });
    // Backed up first, as a settings file is: the user's own file, byte for byte.
    expect(installed?.backup).toMatch(/config\.toml\.agentmeter-backup-/);
    expect(readFileSync(installed!.backup!, 'utf8')).toBe(config);
    const text = read(t, '.codex/config.toml');
    expect(text.startsWith(config)).toBe(true);
    const parsed = parseToml(text) as Record<string, Record<string, unknown>>;
    expect(parsed['otel']).toEqual({
      log_user_prompt: false,
      exporter: { 'otlp-http': { endpoint: `${ENDPOINT}/v1/logs`, protocol: 'binary' } },
    });
    expect(parsed['profiles']).toEqual({ fast: { model: 'gpt-5-mini' } });
    expect(install(t).telemetry?.outcome).toBe('already');
    const removed = uninstall(t).telemetry;
    expect(removed?.outcome).toBe('removed');
    expect(readFileSync(removed!.backup!, 'utf8')).toBe(text);
    expect(read(t, '.codex/config.toml')).toBe(config);
    expect(existsSync(join(t.home, '.codex/hooks.json'))).toBe(false);
  });

  it('kept with dotfiles (a link): the hook goes in and out, the link stays; adding the export is refused with the way round', () => {
    const t = setup('codex', { 'dotfiles/codex.toml': config });
    const file = join(t.home, '.codex/config.toml');
    mkdirSync(join(t.home, '.codex'));
    symlinkSync(join(t.home, 'dotfiles/codex.toml'), file);
    const hooksOnly: InstallTarget = { agent: 'codex', home: t.home, agentmeterHome: t.agentmeterHome, defaultAgentmeterHome: true };
    // Nothing of agentmeter's is in the file: no write is due, so the link is no reason to refuse.
    expect(install(hooksOnly).written).toBe(true);
    const removed = uninstall(t);
    expect(removed).toMatchObject({ written: true, telemetry: { file, outcome: 'none' } });
    expect(existsSync(join(t.home, '.codex/hooks.json'))).toBe(false);
    // A write would cut the link: refused before anything is written, naming the hook-only install.
    expect(() => install(t)).toThrow(`${file} is a symbolic link`);
    expect(() => install(t)).toThrow('--no-otel');
    expect(existsSync(join(t.home, '.codex/hooks.json'))).toBe(false);
    expect(lstatSync(file).isSymbolicLink()).toBe(true);
    expect(read(t, 'dotfiles/codex.toml')).toBe(config);
  });

  it("keeps a user's [otel] and refuses a config.toml that is not TOML", () => {
    const own = `[otel]\nexporter = "none"\n`;
    expect(withCodexOtel(own, ENDPOINT)).toEqual({ text: own, outcome: 'kept-yours' });
    expect(withCodexOtel('', ENDPOINT).outcome).toBe('added');
    expect(withoutCodexOtel(withCodexOtel('', ENDPOINT).text)).toEqual({ text: '', outcome: 'removed' });
    const t = setup('codex', { '.codex/config.toml': 'model = \n' });
    expect(() => install(t)).toThrow(/not valid TOML/);
  });
});
