// GitHub Copilot end to end: `agentmeter hooks install --agent copilot` (and Claude Code's, whose settings VS
// Code's agent also runs) into a temporary HOME holding the user's own hook files and VS Code settings; the
// fixture payloads of each dialect (collector/agents/copilot/fixtures, SOURCE.md) fired through the
// installed commands by a shell as Copilot and VS Code run them, VS Code's through both files; Copilot's
// OpenTelemetry (VS Code's inference and edit events, the CLI's chat spans) sent by the OpenTelemetry JS
// SDK's exporters to the collector's receiver; `collect --once` to a real server and the batch. Every
// endpoint's figures are the hand-worked ones, nothing is counted as Claude Code, VS Code's double hook
// counts once, and uninstall gives every file back as it was.
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { LoggerProvider, SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { SimpleSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OtlpReceiver } from '../../collector/otel/receiver.ts';
import { ensureSpool, spoolDirs } from '../../collector/spool.ts';
import { createLogger } from '../../common/logger.ts';
import { ROOT, runCli, type ServerProcess, seedAccount, startServerProcess } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FIXTURES = join(ROOT, 'collector', 'agents', 'copilot', 'fixtures');
const DAY = '2026-11-20';
const dir = tempDir();
const db = join(dir, 'agentmeter.duckdb');
const home = join(dir, 'home');
const agentmeterHome = join(home, 'am');
const env = { HOME: home, AGENTMETER_HOME: agentmeterHome };
const log = createLogger({ name: 'test-copilot', level: 'silent' });
const copilotFile = join(home, '.copilot', 'hooks', 'agentmeter.json');
const theirHooks = join(home, '.copilot', 'hooks', 'theirs.json');
const vscodeSettings = join(home, '.config', 'Code', 'User', 'settings.json');
let server: ServerProcess;
let member: string;
let manager: string;

async function api(path: string) {
  const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${manager}` } });
  const json = (await res.json()) as any;
  expect(res.status, JSON.stringify(json)).toBe(200);
  return json;
}

const lines = (file: string) =>
  readFileSync(join(FIXTURES, file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l.replaceAll('/home/dev', home)) as { event: string; payload: Record<string, unknown> });

/** The command our hook entry runs for `event`: in Claude Code's grouped settings or Copilot's flat file. */
function command(file: string, event: string): string {
  const hooks = JSON.parse(readFileSync(file, 'utf8')).hooks[event] as Record<string, unknown>[];
  const entries = hooks.flatMap((h) => (Array.isArray(h['hooks']) ? (h['hooks'] as Record<string, unknown>[]) : [h]));
  const ours = entries.find((h) => String(h['command'] ?? h['bash']).includes('agentmeter-hook.sh'))!;
  return String(ours['command'] ?? ours['bash']);
}

/** Runs a hook command as the host does (sh -c, the payload on stdin), at the payload's own time. */
function fire(cmd: string, payload: Record<string, unknown>, extra: Record<string, string> = {}): void {
  const time = payload['timestamp'];
  execSync(cmd, {
    input: JSON.stringify(payload),
    env: { PATH: process.env['PATH']!, HOME: home, AGENTMETER_EVENT_TIME: String(time), ...extra },
    shell: '/bin/sh',
  });
}

const PASCAL: Record<string, string> = {
  sessionStart: 'SessionStart',
  userPromptSubmitted: 'UserPromptSubmit',
  preToolUse: 'PreToolUse',
  postToolUse: 'PostToolUse',
  agentStop: 'Stop',
  sessionEnd: 'SessionEnd',
};

beforeAll(async () => {
  let org: string;
  ({ key: member, org } = await seedAccount(db, 'member', 'dev@example.com'));
  ({ key: manager } = await seedAccount(db, 'manager', 'lead@example.com', org));
  server = await startServerProcess(db);
});
afterAll(async () => {
  await server?.stop();
});

describe('GitHub Copilot: install → hooks and OpenTelemetry → collector → server → analytics → uninstall', () => {
  it('measures the fixture sessions as worked out by hand, once each, never as Claude Code', { timeout: 300_000 }, async () => {
    // What the user had: a hook file of their own, Claude Code's settings, VS Code's settings.
    mkdirSync(join(home, '.copilot', 'hooks'), { recursive: true });
    mkdirSync(join(home, '.claude'), { recursive: true });
    mkdirSync(join(home, '.config', 'Code', 'User'), { recursive: true });
    const theirs = '{\n  "version": 1,\n  "hooks": { "preToolUse": [{ "type": "command", "bash": "./audit.sh", "timeoutSec": 5 }] }\n}\n';
    const vscodeOriginal = '{\n    "editor.fontSize": 14,\n    "workbench.colorTheme": "Default Dark Modern"\n}\n';
    writeFileSync(theirHooks, theirs);
    writeFileSync(vscodeSettings, vscodeOriginal);

    const installed = runCli(['hooks', 'install', '--agent', 'copilot'], env);
    expect(installed.status, installed.stderr).toBe(0);
    expect(installed.stdout).toContain(`copilot: OpenTelemetry export to the collector turned on in ${vscodeSettings}`);
    expect(installed.stdout).toContain('COPILOT_OTEL_ENABLED=true');
    expect(runCli(['hooks', 'install', '--agent', 'claude', '--no-otel'], env).status).toBe(0);
    const ours = JSON.parse(readFileSync(copilotFile, 'utf8'));
    expect(ours.version).toBe(1);
    expect(ours.hooks.PreToolUse).toEqual([
      { type: 'command', bash: `AGENTMETER_HOME='${agentmeterHome}' '${agentmeterHome}/bin/agentmeter-hook.sh' copilot`, timeoutSec: 10 },
    ]);
    expect(readFileSync(theirHooks, 'utf8')).toBe(theirs);
    expect(JSON.parse(readFileSync(vscodeSettings, 'utf8'))).toMatchObject({
      'github.copilot.chat.otel.enabled': true,
      'github.copilot.chat.otel.otlpEndpoint': 'http://127.0.0.1:4318',
      'editor.fontSize': 14,
    });
    const status = runCli(['hooks', 'status', '--agent', 'copilot'], env);
    expect(status.stdout).toContain(`copilot: installed in ${copilotFile}`);
    const doctor = runCli(['doctor'], env);
    expect(doctor.stdout).toMatch(
      new RegExp(`ok +hook: copilot: installed in ${copilotFile.replaceAll('.', '\\.')} \\(user\\); the hook script runs`),
    );

    // VS Code runs both files' hooks for each of its events; Copilot CLI runs its hook file's.
    const vscode = lines('vscode.jsonl');
    for (const { event, payload } of vscode) {
      fire(command(join(home, '.claude', 'settings.json'), event), payload);
      fire(command(copilotFile, event), payload);
    }
    for (const { event, payload } of lines('cli-pascal.jsonl')) fire(command(copilotFile, event), payload);
    // camelCase payloads, as a hook file that registers the camelCase names (an administrator's) sends them.
    for (const { event, payload } of lines('cli-camel.jsonl')) fire(command(copilotFile, PASCAL[event]!), payload);

    // Copilot's OpenTelemetry, through the SDK's exporters to the collector's receiver.
    const dirs = spoolDirs(agentmeterHome);
    ensureSpool(dirs);
    const receiver = new OtlpReceiver({ listen: '127.0.0.1:0', dirs, log });
    const base = `http://127.0.0.1:${await receiver.start()}`;
    const at = (iso: string) => new Date(iso);
    const logs = new LoggerProvider({
      resource: resourceFromAttributes({ 'service.name': 'copilot-chat', 'session.id': 'window-1', 'user.email': 'intruder@evil.example' }),
      processors: [new SimpleLogRecordProcessor({ exporter: new ProtoLogExporter({ url: `${base}/v1/logs` }) })],
    });
    const logger = logs.getLogger('copilot-chat');
    const inference = (id: string, model: string, input: number, cached: number, output: number, time: string) =>
      logger.emit({
        eventName: 'gen_ai.client.inference.operation.details',
        body: 'GenAI inference: SECRET prompt text',
        timestamp: at(time),
        attributes: {
          'event.name': 'gen_ai.client.inference.operation.details',
          'gen_ai.operation.name': 'chat',
          'gen_ai.request.model': model,
          'gen_ai.response.model': model,
          'gen_ai.response.id': id,
          'gen_ai.usage.input_tokens': input,
          'gen_ai.usage.output_tokens': output,
          'gen_ai.usage.cache_read.input_tokens': cached,
        },
      });
    inference('chatcmpl-A', 'gpt-4.1', 1200, 200, 300, '2026-11-20T09:00:03Z');
    inference('chatcmpl-B', 'gpt-4.1', 2000, 0, 100, '2026-11-20T09:00:18Z');
    const decision = (name: string, attributes: Record<string, string | boolean>) =>
      logger.emit({ eventName: name, timestamp: at('2026-11-20T09:00:10Z'), attributes: { 'event.name': name, ...attributes } });
    decision('copilot_chat.edit.feedback', { outcome: 'accepted', language_id: 'typescript', request_id: 'r1' });
    decision('copilot_chat.edit.feedback', { outcome: 'rejected', language_id: 'python', request_id: 'r2' });
    decision('copilot_chat.inline.done', { accepted: true, language_id: 'typescript' });
    await logs.forceFlush();
    await logs.shutdown();

    const chatSpans = async (
      exporter: SpanExporter,
      calls: {
        id: string;
        conversation: string;
        input: number;
        cached: number;
        written: number;
        output: number;
        reasoning: number;
        time: string;
      }[],
    ) => {
      const provider = new TracerProvider({
        resource: resourceFromAttributes({ 'service.name': 'github-copilot', 'service.version': '1.0.84' }),
        spanProcessors: [new SimpleSpanProcessor({ exporter })],
      });
      const tracer = provider.getTracer('github.copilot');
      for (const c of calls) {
        const agent = tracer.startSpan('invoke_agent copilot', {
          startTime: at(c.time),
          attributes: {
            'gen_ai.operation.name': 'invoke_agent',
            'gen_ai.usage.input_tokens': c.input,
            'gen_ai.usage.output_tokens': c.output,
          },
        });
        const span = tracer.startSpan('chat claude-sonnet-4.5', {
          startTime: at(c.time),
          attributes: {
            'gen_ai.operation.name': 'chat',
            'gen_ai.request.model': 'claude-sonnet-4.5',
            'gen_ai.response.model': 'claude-sonnet-4.5',
            'gen_ai.response.id': c.id,
            'gen_ai.conversation.id': c.conversation,
            'gen_ai.usage.input_tokens': c.input,
            'gen_ai.usage.output_tokens': c.output,
            'gen_ai.usage.cache_read.input_tokens': c.cached,
            'gen_ai.usage.cache_creation.input_tokens': c.written,
            'gen_ai.usage.reasoning.output_tokens': c.reasoning,
          },
        });
        span.end(new Date(at(c.time).getTime() + 2000));
        agent.end(new Date(at(c.time).getTime() + 3000));
      }
      await provider.forceFlush();
      await provider.shutdown();
    };
    const cliP = {
      id: 'msg_C',
      conversation: 'cli-p',
      input: 5000,
      cached: 4000,
      written: 600,
      output: 100,
      reasoning: 40,
      time: '2026-11-20T10:00:02Z',
    };
    const cliC = {
      id: 'msg_D',
      conversation: 'cli-c',
      input: 800,
      cached: 0,
      written: 0,
      output: 50,
      reasoning: 0,
      time: '2026-11-20T11:00:02Z',
    };
    await chatSpans(new JsonTraceExporter({ url: `${base}/v1/traces` }), [cliP, cliC]);
    // The same call exported again (a retried export): one call.
    await chatSpans(new ProtoTraceExporter({ url: `${base}/v1/traces` }), [cliC]);
    await receiver.stop();
    // The receiver's spool files (the hook's hold the payloads, which stay on the machine) name no prompt or identity.
    const spooled = readdirSync(dirs.new)
      .filter((n) => n.startsWith('otel.'))
      .map((n) => readFileSync(join(dirs.new, n), 'utf8'))
      .join('\n');
    expect(spooled).not.toMatch(/SECRET|evil\.example/);

    const shipped = runCli(['collect', '--once', '--server', server.url, '--key', member], env);
    expect(shipped.status, shipped.stderr).toBe(0);
    const collectStatus = runCli(['collect', 'status'], env);
    expect(collectStatus.stdout).toMatch(/pending: 0\n/);
    expect(collectStatus.stdout).toMatch(/quarantined: 0\n/);
    // VS Code's second copy of each event: dropped, with why.
    expect(collectStatus.stdout).toContain(`dropped: ${vscode.length} (the same event another hook file already spooled`);
    const batch = runCli(['batch', '--server', server.url, '--key', manager]);
    expect(batch.status, batch.stderr).toBe(0);

    const q = `startDate=${DAY}&endDate=${DAY}`;
    // Tokens, OTel only: A 1000 in + 200 cached, 300 out; B 2000 in, 100 out; C 5000 − 4000 cached = 1000
    // in, 600 written, 100 out (40 of it reasoning: thinking); D 800 in, 50 out, once.
    const [tokens] = (await api(`/api/v1/analytics/tokens?${q}`)).data;
    expect(tokens).toMatchObject({ input_tokens: 4800, output_tokens: 550, cache_read_tokens: 4200, cache_write_tokens: 600 });
    const byModel = Object.fromEntries(
      tokens.by_model.map((m: { model_id: string; input_tokens: number; model_tier: string }) => [
        m.model_id,
        [m.input_tokens, m.model_tier],
      ]),
    );
    expect(byModel).toEqual({ 'gpt-4.1': [3000, 'standard'], 'claude-sonnet-4.5': [1800, 'thinking'] });
    expect((await api(`/api/v1/analytics/tokens?${q}&group_by=agent`)).data.map((r: { group_key: string }) => r.group_key)).toEqual([
      'copilot',
    ]);

    const tools = (await api(`/api/v1/analytics/tools?${q}`)).data[0];
    expect(tools.tool_calls).toBe(8);
    const byTool = Object.fromEntries(tools.by_tool.map((t: { tool: string; invocations: number }) => [t.tool, t.invocations]));
    expect(byTool).toEqual({
      create_file: 1,
      replace_string_in_file: 1,
      run_in_terminal: 1,
      Write: 1,
      Bash: 1,
      Edit: 1,
      bash: 1,
      create: 1,
    });
    expect((await api(`/api/v1/analytics/tools?${q}&group_by=agent`)).data).toEqual([{ date: DAY, group_key: 'copilot', tool_calls: 8 }]);

    const activity = (await api(`/api/v1/analytics/activity?${q}`)).data[0];
    expect(activity).toMatchObject({
      daily_active_users: 1,
      daily_active_users_by_client: { 'terminal-ui': 1, web: 0, 'non-interactive-cli': 0, vscode: 1 },
      sessions: 3,
      user_messages: 3,
    });
    const byAgent = (await api(`/api/v1/analytics/activity?${q}&group_by=agent`)).data;
    expect(byAgent).toEqual([{ date: DAY, group_key: 'copilot', daily_active_users: 1 }]);

    const productivity = (await api(`/api/v1/analytics/productivity?${q}`)).data[0];
    expect(productivity).toMatchObject({
      files_created: 3,
      files_edited: 2,
      git_commits: 2,
      edits_accepted: 2,
      edits_rejected: 1,
      edit_acceptance_rate: 0.6667,
    });
    expect((await api(`/api/v1/analytics/productivity?${q}&group_by=agent`)).data).toEqual([
      { date: DAY, group_key: 'copilot', edits_accepted: 2, edits_rejected: 1, edit_acceptance_rate: 0.6667 },
    ]);

    // Edit lines (SOURCE.md): 2 + 2 + 2 + 1 + 1 added, 1 + 1 removed.
    const code = (await api(`/api/v1/analytics/code?${q}`)).data[0];
    expect(code.edits).toMatchObject({
      lines_added: 8,
      lines_deleted: 2,
      by_agent: [{ agent: 'copilot', lines_added: 8, lines_deleted: 2 }],
    });

    const everything = JSON.stringify([tokens, tools, activity, productivity, code]);
    for (const secret of ['SECRET', 'evil.example', 'fix the port', 'price helper']) expect(everything).not.toContain(secret);

    // Uninstall: our file goes, the user's hook file and VS Code's settings are as they were.
    const removed = runCli(['hooks', 'uninstall', '--agent', 'copilot'], env);
    expect(removed.status, removed.stderr).toBe(0);
    expect(existsSync(copilotFile)).toBe(false);
    expect(readFileSync(theirHooks, 'utf8')).toBe(theirs);
    expect(readFileSync(vscodeSettings, 'utf8')).toBe(vscodeOriginal);
  });
});
