// GitHub Copilot's hook payloads (collector/agents/copilot/fixtures, SOURCE.md): each dialect read into the
// pipeline's facts, VS Code's events recorded as Copilot's with the client vscode whichever hook file ran
// the hook (and one id for both copies), the flat hook file Copilot CLI reads, and VS Code's OTel settings.

import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copilotEventKey } from '../../collector/agents/copilot/events.ts';
import { flatFromGrouped, groupedFromFlat } from '../../collector/agents/copilot/format.ts';
import { COPILOT_HOOKS_FORMAT } from '../../collector/agents/copilot/hooks.ts';
import { camelCaseEvent, copilotPayload } from '../../collector/agents/copilot/schema.ts';
import { withoutVsCodeOtel, withVsCodeOtel } from '../../collector/agents/copilot/telemetry.ts';
import { copilotWrites } from '../../collector/agents/copilot/tools.ts';
import { toWireEvent } from '../../collector/events.ts';
import { type InstallTarget, install, status, uninstall, withOurHook, withoutOurHook } from '../../collector/install/installer.ts';
import { AGENT_EVENTS, agentFound, HooksMap, managedSettingsLocation } from '../../collector/install/settings.ts';
import { otelWireRecords } from '../../collector/otel/spooled.ts';
import { parseSpoolFile, type SpoolEntry } from '../../collector/spool.ts';
import { type WireHookEvent, WireHookEvent as WireHookEventSchema } from '../../common/wire.ts';
import { generate } from '../../sample-data/generator.ts';
import { ROOT } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIXTURES = join(ROOT, 'collector', 'agents', 'copilot', 'fixtures');
const lines = (file: string) =>
  readFileSync(join(FIXTURES, file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { event: string; payload: Record<string, unknown> });

function entry(payload: unknown, agent: string, name: string): SpoolEntry {
  const text = `agentmeter-spool=1\nagent=${agent}\nclient=\nentrypoint=\ntime=\n\n${JSON.stringify(payload)}`;
  const parsed = parseSpoolFile(name, Buffer.from(text), Date.UTC(2026, 10, 20, 12));
  if (parsed.kind !== 'ok') throw new Error(parsed.reason);
  return parsed.value;
}

function derive(payload: unknown, agent = 'copilot', name = 'f1'): WireHookEvent {
  const result = toWireEvent(entry(payload, agent, name), 'm1', undefined);
  if (result.kind !== 'ok') throw new Error(`${result.kind}: ${result.reason}`);
  expect(WireHookEventSchema.safeParse(result.value.record).success).toBe(true);
  return result.value.record;
}

const facts = (r: WireHookEvent) => Object.fromEntries(Object.entries(factsOf(r)).filter(([, v]) => v !== undefined));
const factsOf = (r: WireHookEvent) => ({
  agent: r.agent,
  event: r.event,
  session: r.session_id,
  client: r.client,
  tool: r.tool_name,
  ok: r.tool_success,
  shell: r.is_shell,
  commit: r.git_commit,
  files: r.files?.map((f) => `${f.op}:${f.name ?? f.ext}`),
  lines: r.edits?.map((e) => `${e.name ?? e.ext}+${e.lines_added}-${e.lines_deleted}`),
});

describe("Copilot's three payload dialects", () => {
  it("VS Code's agent: recorded as copilot with the client vscode, tools and edit lines read", () => {
    const records = lines('vscode.jsonl').map(({ payload }) => derive(payload));
    expect(records.map(facts)).toEqual([
      { agent: 'copilot', event: 'SessionStart', session: 'vs-1', client: 'vscode' },
      { agent: 'copilot', event: 'UserPromptSubmit', session: 'vs-1', client: 'vscode' },
      { agent: 'copilot', event: 'PreToolUse', session: 'vs-1', client: 'vscode', tool: 'create_file' },
      {
        agent: 'copilot',
        event: 'PostToolUse',
        session: 'vs-1',
        client: 'vscode',
        tool: 'create_file',
        ok: true,
        files: ['create:ts'],
        lines: ['ts+2-0'],
      },
      { agent: 'copilot', event: 'PreToolUse', session: 'vs-1', client: 'vscode', tool: 'replace_string_in_file' },
      {
        agent: 'copilot',
        event: 'PostToolUse',
        session: 'vs-1',
        client: 'vscode',
        tool: 'replace_string_in_file',
        ok: true,
        files: ['edit:ts'],
        lines: ['ts+2-1'],
      },
      { agent: 'copilot', event: 'PreToolUse', session: 'vs-1', client: 'vscode', tool: 'run_in_terminal', shell: true },
      {
        agent: 'copilot',
        event: 'PostToolUse',
        session: 'vs-1',
        client: 'vscode',
        tool: 'run_in_terminal',
        ok: true,
        shell: true,
        commit: true,
      },
      { agent: 'copilot', event: 'Stop', session: 'vs-1', client: 'vscode' },
    ]);
  });

  it('Copilot CLI, PascalCase: Claude Code names, a failed result is a failed call', () => {
    const records = lines('cli-pascal.jsonl').map(({ payload }) => derive(payload));
    expect(records.map(facts)).toEqual([
      { agent: 'copilot', event: 'SessionStart', session: 'cli-p', client: 'terminal-ui' },
      { agent: 'copilot', event: 'UserPromptSubmit', session: 'cli-p', client: 'terminal-ui' },
      { agent: 'copilot', event: 'PreToolUse', session: 'cli-p', client: 'terminal-ui', tool: 'Write' },
      {
        agent: 'copilot',
        event: 'PostToolUse',
        session: 'cli-p',
        client: 'terminal-ui',
        tool: 'Write',
        ok: true,
        files: ['create:py'],
        lines: ['py+2-0'],
      },
      { agent: 'copilot', event: 'PreToolUse', session: 'cli-p', client: 'terminal-ui', tool: 'Bash', shell: true },
      { agent: 'copilot', event: 'PostToolUseFailure', session: 'cli-p', client: 'terminal-ui', tool: 'Bash', ok: false, shell: true },
      { agent: 'copilot', event: 'PreToolUse', session: 'cli-p', client: 'terminal-ui', tool: 'Edit' },
      {
        agent: 'copilot',
        event: 'PostToolUse',
        session: 'cli-p',
        client: 'terminal-ui',
        tool: 'Edit',
        ok: true,
        files: ['edit:py'],
        lines: ['py+1-1'],
      },
      { agent: 'copilot', event: 'Stop', session: 'cli-p', client: 'terminal-ui' },
      { agent: 'copilot', event: 'SessionEnd', session: 'cli-p', client: 'terminal-ui' },
    ]);
    expect(records.at(-1)?.reason).toBe('complete');
  });

  it('Copilot CLI, camelCase: the event told from its fields, toolArgs parsed from its JSON string', () => {
    const fixture = lines('cli-camel.jsonl');
    expect(fixture.map(({ payload }) => camelCaseEvent(payload))).toEqual(fixture.map(({ event }) => event));
    const records = fixture.map(({ payload }) => derive(payload));
    expect(records.map(facts)).toEqual([
      { agent: 'copilot', event: 'SessionStart', session: 'cli-c', client: 'terminal-ui' },
      { agent: 'copilot', event: 'UserPromptSubmit', session: 'cli-c', client: 'terminal-ui' },
      { agent: 'copilot', event: 'PreToolUse', session: 'cli-c', client: 'terminal-ui', tool: 'bash', shell: true },
      {
        agent: 'copilot',
        event: 'PostToolUse',
        session: 'cli-c',
        client: 'terminal-ui',
        tool: 'bash',
        ok: true,
        shell: true,
        commit: true,
      },
      { agent: 'copilot', event: 'PreToolUse', session: 'cli-c', client: 'terminal-ui', tool: 'create' },
      {
        agent: 'copilot',
        event: 'PostToolUse',
        session: 'cli-c',
        client: 'terminal-ui',
        tool: 'create',
        ok: true,
        files: ['create:md'],
        lines: ['md+1-0'],
      },
      { agent: 'copilot', event: 'Stop', session: 'cli-c', client: 'terminal-ui' },
      { agent: 'copilot', event: 'SessionEnd', session: 'cli-c', client: 'terminal-ui' },
    ]);
    // A failed camelCase call, and a payload without a session (Copilot CLI before 1.0.11) is quarantined.
    const failed = { sessionId: 'c', timestamp: 1, toolName: 'bash', toolArgs: '{}', toolResult: { resultType: 'denied' } };
    expect(derive(failed).event).toBe('PostToolUseFailure');
    const result = toWireEvent(entry({ timestamp: 1, cwd: '/w', source: 'new' }, 'copilot', 'f9'), 'm1', undefined);
    expect(result.kind).toBe('quarantine');
  });

  it('AGENTMETER_CLIENT still names the client of a headless Copilot CLI run', () => {
    const text = `agentmeter-spool=1\nagent=copilot\nclient=non-interactive-cli\n\n${JSON.stringify(lines('cli-pascal.jsonl')[0]!.payload)}`;
    const parsed = parseSpoolFile('h1', Buffer.from(text), Date.UTC(2026, 10, 20));
    if (parsed.kind !== 'ok') throw new Error(parsed.reason);
    const result = toWireEvent(parsed.value, 'm1', undefined);
    expect(result.kind === 'ok' && result.value.record.client).toBe('non-interactive-cli');
  });
});

describe('VS Code running our hook from two files', () => {
  it('the Claude Code hook and Copilot hook give one event, one id', () => {
    for (const { payload } of lines('vscode.jsonl')) {
      const viaClaude = derive(payload, 'claude', 'a1');
      const viaCopilot = derive(payload, 'copilot', 'b2');
      expect(viaClaude).toEqual(viaCopilot);
      expect(viaClaude.agent).toBe('copilot');
    }
    const ids = lines('vscode.jsonl').map(({ payload }) => derive(payload).id);
    expect(new Set(ids).size).toBe(ids.length);
    // The key is the payload's own: session, event, time and tool call; another time is another event.
    const first = lines('vscode.jsonl')[2]!.payload;
    expect(copilotEventKey(first)).toBe(copilotEventKey({ ...first }));
    expect(copilotEventKey({ ...first, timestamp: '2026-11-20T09:00:04.001Z' })).not.toBe(copilotEventKey(first));
    expect(copilotEventKey({ ...first, tool_use_id: 'call_9' })).not.toBe(copilotEventKey(first));
    expect(copilotEventKey({ hookEventName: 'Stop' })).toBeUndefined();
  });

  it('reads the three dialects into the hook payload names', () => {
    expect(copilotPayload({ hookEventName: 'Stop', sessionId: 's', timestamp: 'x' })).toMatchObject({
      hook_event_name: 'Stop',
      session_id: 's',
    });
    expect(copilotPayload({ sessionId: 's', timestamp: 1, toolName: 'edit', toolArgs: 'not json' })).toMatchObject({
      hook_event_name: 'preToolUse',
      tool_input: {},
    });
  });
});

describe("Copilot's tools", () => {
  it('writes of each tool, with lines where the arguments give them', () => {
    const w = (tool: string, input: unknown) =>
      copilotWrites(tool, input, undefined).map((x) => `${x.op}:${x.edit.path}+${x.edit.added.length}-${x.edit.deleted}`);
    expect(w('str_replace_editor', { command: 'create', path: '/w/a.ts', file_text: 'a\nb' })).toEqual(['create:/w/a.ts+2-0']);
    expect(w('str_replace_editor', { command: 'str_replace', path: '/w/a.ts', old_str: 'a', new_str: 'b' })).toEqual(['edit:/w/a.ts+1-1']);
    expect(
      w('multi_replace_string_in_file', {
        replacements: [
          { filePath: '/w/a.ts', oldString: 'a', newString: 'b' },
          { filePath: '/w/b.ts', oldString: 'c', newString: 'd\ne' },
        ],
      }),
    ).toEqual(['edit:/w/a.ts+1-1', 'edit:/w/b.ts+2-1']);
    expect(w('editFiles', { files: ['/w/a.ts', '/w/b.ts'] })).toEqual(['edit:/w/a.ts+0-0', 'edit:/w/b.ts+0-0']);
    expect(w('apply_patch', { input: '*** Begin Patch\n*** Add File: x.md\n+hi\n*** End Patch' })).toEqual(['create:x.md+1-0']);
    expect(w('view', { path: '/w/a.ts' })).toEqual([]);
  });
});

describe("the sample organization's Copilot sessions", () => {
  it('are payloads the collector records as Copilot (VS Code through either hook), with tokens as the receiver spools them', () => {
    const plan = generate({ seed: 7, lastDay: '2026-11-20', days: 30, users: 8 });
    const copilotUsers = plan.users.filter((u) => u.agents.includes('copilot'));
    expect(copilotUsers.length).toBeGreaterThan(0);
    const planned = plan.events.flat().filter((e) => e.agent === 'copilot' || 'hookEventName' in e.payload);
    expect(planned.length).toBeGreaterThan(20);
    const clients = new Set<string>();
    let usage = 0;
    for (const [i, event] of planned.entries()) {
      const payload = JSON.parse(JSON.stringify(event.payload).replaceAll('"~/', '"/home/s/'));
      const record = derive(payload, event.agent, `s${i}`);
      expect(record.agent).toBe('copilot');
      clients.add(record.client);
      for (const op of event.before) {
        const parsed = parseSpoolFile(`otel.${i}`, Buffer.from(op.content), 0);
        if (parsed.kind !== 'ok') throw new Error(parsed.reason);
        const records = otelWireRecords(parsed.value, 'm1');
        if (records.kind !== 'ok') throw new Error(records.reason);
        usage += records.value.filter((r) => r.kind === 'usage' && r.agent === 'copilot').length;
      }
    }
    expect([...clients]).toContain('vscode');
    expect([...clients]).toContain('terminal-ui');
    expect(usage).toBeGreaterThan(0);
  });
});

describe('finding Copilot on a machine (install.sh runs hooks install --all-found)', () => {
  it("by ~/.copilot, by the copilot command, or by VS Code's Copilot Chat extension alone", () => {
    const home = tempDir();
    expect(agentFound('copilot', home, '')).toBe(false);
    mkdirSync(join(home, '.vscode', 'extensions', 'github.copilot-chat-0.31.2'), { recursive: true });
    expect(agentFound('copilot', home, '')).toBe(true);
    const other = tempDir();
    mkdirSync(join(other, '.copilot'));
    expect(agentFound('copilot', other, '')).toBe(true);
  });
});

describe("Copilot CLI's flat hook file", () => {
  const flat = { command: 'bash', timeout: 'timeoutSec', version: 1 };
  it('reads as the grouped map and writes back as it was, keeping the entry keys it does not know', () => {
    const file = {
      sessionStart: [{ type: 'command', bash: './start.sh', powershell: './start.ps1', cwd: 'scripts', timeoutSec: 30 }],
      PreToolUse: [{ type: 'command', bash: './guard.sh', matcher: 'Bash' }],
    };
    const grouped = HooksMap.parse(groupedFromFlat(file, flat));
    expect(grouped['sessionStart']).toEqual([
      { hooks: [{ type: 'command', command: './start.sh', powershell: './start.ps1', cwd: 'scripts', timeout: 30 }] },
    ]);
    expect(flatFromGrouped(grouped, flat)).toEqual(file);
    const target = { agent: 'copilot' as const, home: '/h', agentmeterHome: '/h/.agentmeter', defaultAgentmeterHome: true };
    const withOurs = flatFromGrouped(withOurHook(grouped, target).hooks, flat);
    expect(withOurs['PreToolUse']).toEqual([
      { type: 'command', bash: './guard.sh', matcher: 'Bash' },
      { type: 'command', bash: "'/h/.agentmeter/bin/agentmeter-hook.sh' copilot", timeoutSec: 10 },
    ]);
    expect(withOurs['UserPromptSubmit']).toEqual([
      { type: 'command', bash: "'/h/.agentmeter/bin/agentmeter-hook.sh' copilot prompt", timeoutSec: 10 },
    ]);
    expect(flatFromGrouped(withoutOurHook(HooksMap.parse(groupedFromFlat(withOurs, flat))).hooks, flat)).toEqual(file);
  });
});

describe("Copilot's policy folder (a managed install)", () => {
  it('writes a root-style 0644 flat file naming the shared script and no AGENTMETER_HOME, and takes it away again', () => {
    expect(managedSettingsLocation('copilot', 'linux')).toEqual({
      file: '/etc/github-copilot/policy.d/agentmeter.json',
      topLevel: false,
      format: COPILOT_HOOKS_FORMAT,
    });
    const root = tempDir();
    const file = join(root, 'etc', 'github-copilot', 'policy.d', 'agentmeter.json');
    const hookPath = join(root, 'usr', 'local', 'lib', 'agentmeter', 'agentmeter-hook.sh');
    const target: InstallTarget = {
      agent: 'copilot',
      home: join(root, 'home'),
      agentmeterHome: join(root, 'home', '.agentmeter'),
      defaultAgentmeterHome: true,
      settingsFile: file,
      hookPath,
    };
    const umask = process.umask(0o077);
    try {
      install(target);
    } finally {
      process.umask(umask);
    }
    expect(statSync(file).mode & 0o777).toBe(0o644);
    const written = JSON.parse(readFileSync(file, 'utf8'));
    expect(written.version).toBe(1);
    expect(Object.keys(written.hooks)).toEqual([...AGENT_EVENTS.copilot]);
    expect(written.hooks.Stop).toEqual([{ type: 'command', bash: `'${hookPath}' copilot`, timeoutSec: 10 }]);
    expect(status(target)).toMatchObject({ missingEvents: [], outdatedEvents: [], scriptInstalled: true });
    uninstall(target);
    expect(existsSync(file)).toBe(false);
  });
});

describe("VS Code's OpenTelemetry settings for Copilot", () => {
  const endpoint = 'http://127.0.0.1:4318';
  it('adds our three settings after the opening brace and takes exactly them out again', () => {
    const original = '{\n    "editor.fontSize": 14,\n    "files.autoSave": "afterDelay"\n}\n';
    const added = withVsCodeOtel(original, endpoint);
    expect(added.outcome).toBe('added');
    expect(JSON.parse(added.text)).toEqual({
      'github.copilot.chat.otel.enabled': true,
      'github.copilot.chat.otel.exporterType': 'otlp-http',
      'github.copilot.chat.otel.otlpEndpoint': endpoint,
      'editor.fontSize': 14,
      'files.autoSave': 'afterDelay',
    });
    expect(withVsCodeOtel(added.text, endpoint).outcome).toBe('already');
    expect(withoutVsCodeOtel(added.text)).toEqual({ text: original, outcome: 'removed' });
    const empty = withVsCodeOtel('{}', endpoint);
    expect(JSON.parse(empty.text)['github.copilot.chat.otel.enabled']).toBe(true);
    expect(withoutVsCodeOtel(empty.text)).toEqual({ text: '{}', outcome: 'removed' });
  });

  it("keeps the user's own export, a file with comments, and no VS Code at all as they are", () => {
    const theirs = '{ "github.copilot.chat.otel.enabled": true, "github.copilot.chat.otel.otlpEndpoint": "https://otel.example" }';
    expect(withVsCodeOtel(theirs, endpoint)).toEqual({ text: theirs, outcome: 'kept-yours' });
    expect(withoutVsCodeOtel(theirs).outcome).toBe('none');
    const jsonc = '{\n  // mine\n  "editor.fontSize": 14\n}';
    expect(withVsCodeOtel(jsonc, endpoint)).toEqual({ text: jsonc, outcome: 'unsupported' });
    expect(withVsCodeOtel('', endpoint)).toEqual({ text: '', outcome: 'unsupported' });
  });
});
