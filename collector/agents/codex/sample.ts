// Codex CLI sessions for the sample organization: hook payloads as Codex sends them (Claude Code's event
// names and permission modes, `Bash` and `apply_patch`, `mcp__<server>__<tool>`, turn_id and model on
// every event) and the session rollout the collector reads usage from: session_meta (source "exec" for
// headless runs, which is how the collector tells `codex exec`), turn_context with the model, and
// cumulative token_count totals, some written twice as Codex does. Pure and seeded like generator.ts.
import { type AgentSample, type FileOp, type PlannedEvent, type SampleSession, TEAMS } from '../../../sample-data/plan.ts';
import { hex, pick, weighted } from '../../../sample-data/random.ts';

export interface CodexPersona {
  /** Share of sessions run headless (`codex exec`). */
  headlessShare: number;
  mcpLover: boolean;
  /** File extensions of the user's team. */
  exts: readonly string[];
}

const MODES = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk'];
const MCP_TOOLS = ['mcp__github__get_issue', 'mcp__GitHub__search_code', 'mcp__linear__list_issues', 'mcp__sentry__get_event'];
const SHELL = [
  ['npm test', 30],
  ['git status --short', 20],
  ['git add -A && git commit -m "Update (private message)"', 12],
  ['gh pr create --fill', 4],
  ['cargo build', 8],
  ['rg TODO src', 10],
] as const;

/** Codex session ids are UUID v7 (time first). */
const uuid7 = (r: () => number, at: number) => {
  const t = at.toString(16).padStart(12, '0');
  return `${t.slice(0, 8)}-${t.slice(8, 12)}-7${hex(r, 3)}-8${hex(r, 3)}-${hex(r, 12)}`;
};

export function codexSession(r: () => number, p: CodexPersona, start: number, webShare: number): { events: PlannedEvent[]; end: number } {
  const sessionId = uuid7(r, start);
  const out: PlannedEvent[] = [];
  const project = pick(r, ['web-app', 'api', 'infra', 'mobile', 'pipelines', 'design-system']);
  const cwd = `~/src/${project}`;
  const web = r() < webShare;
  const headless = !web && r() < p.headlessShare;
  const env: Record<string, string> = web ? { AGENTMETER_CLIENT: 'web' } : {};
  const day = new Date(start).toISOString();
  const rolloutRel = `.codex/sessions/${day.slice(0, 4)}/${day.slice(5, 7)}/${day.slice(8, 10)}/rollout-${day.slice(0, 19).replaceAll(':', '-')}-${sessionId}.jsonl`;
  const mode = headless
    ? 'bypassPermissions'
    : weighted(
        r,
        MODES.map((m, k) => [m, [35, 30, 10, 10, 15][k]!] as const),
      );
  const model = weighted(r, [
    ['gpt-5.5', 55],
    ['gpt-5.4', 25],
    ['gpt-5.4-mini', 15],
    ['gpt-5.3-codex', 5],
  ] as const);
  let t = start;
  const tick = (minSec: number, maxSec: number) => (t += Math.round((minSec + r() * (maxSec - minSec)) * 1000));
  const line = (type: string, payload: Record<string, unknown>) =>
    `${JSON.stringify({ timestamp: new Date(t).toISOString(), type, payload })}\n`;
  const append = (content: string): FileOp => ({ path: rolloutRel, mode: 'append', content });
  const base = { session_id: sessionId, transcript_path: `~/${rolloutRel}`, cwd, model, permission_mode: mode };
  const emit = (payload: Record<string, unknown>, before: FileOp[] = []) =>
    out.push({ at: Math.round(t), agent: 'codex', env, payload: { ...base, ...payload }, before });
  const totals = { input_tokens: 0, cached_input_tokens: 0, output_tokens: 0, reasoning_output_tokens: 0 };

  emit({ hook_event_name: 'SessionStart', source: 'startup' }, [
    append(
      line('session_meta', {
        id: sessionId,
        timestamp: new Date(t).toISOString(),
        cwd,
        originator: headless ? 'codex_exec' : 'codex_cli_rs',
        cli_version: '0.151.0',
        source: headless ? 'exec' : 'cli',
        model_provider: 'openai',
      }),
    ),
  ]);
  const turns = 1 + Math.floor(r() * (headless ? 1.5 : 3));
  for (let k = 0; k < turns; k++) {
    tick(5, 90);
    const turnId = uuid7(r, t);
    emit({ hook_event_name: 'UserPromptSubmit', turn_id: turnId, prompt: `Please help with ${project} task ${k} (private prompt text)` }, [
      append(line('turn_context', { cwd, approval_policy: headless ? 'never' : 'on-request', model, effort: 'medium', summary: 'auto' })),
    ]);
    const calls = Math.floor(r() * 4);
    for (let c = 0; c < calls; c++) {
      tick(2, 40);
      const call = toolCall(r, p, project);
      const id = `call_${hex(r, 24)}`;
      emit({ hook_event_name: 'PreToolUse', turn_id: turnId, tool_name: call.tool, tool_input: call.input, tool_use_id: id });
      tick(1, 20);
      emit({
        hook_event_name: 'PostToolUse',
        turn_id: turnId,
        tool_name: call.tool,
        tool_input: call.input,
        tool_response: call.response,
        tool_use_id: id,
      });
    }
    // The model calls of the turn: one token_count each, cumulative; now and then written twice.
    tick(3, 60);
    const before: FileOp[] = [];
    const responses = 1 + Math.floor(r() * 3);
    for (let m = 0; m < responses; m++) {
      const input = 2000 + Math.floor(r() * 20_000);
      const cached = Math.floor(input * r() * 0.8);
      const reasoning = r() < 0.6 ? Math.floor(r() * 800) : 0;
      const output = reasoning + 50 + Math.floor(r() * 1200);
      totals.input_tokens += input;
      totals.cached_input_tokens += cached;
      totals.output_tokens += output;
      totals.reasoning_output_tokens += reasoning;
      const last = { input_tokens: input, cached_input_tokens: cached, output_tokens: output, reasoning_output_tokens: reasoning };
      const count = line('event_msg', {
        type: 'token_count',
        info: { total_token_usage: { ...totals }, last_token_usage: last },
        rate_limits: null,
      });
      before.push(append(count));
      if (r() < 0.3) before.push(append(count));
    }
    before.push(
      append(
        line('response_item', {
          type: 'message',
          role: 'assistant',
          id: `msg_${hex(r, 24)}`,
          content: [{ type: 'output_text', text: '(answer)' }],
        }),
      ),
    );
    emit({ hook_event_name: 'Stop', turn_id: turnId, stop_hook_active: false, last_assistant_message: '(answer)' }, before);
  }
  tick(5, 300);
  emit({ hook_event_name: 'SessionEnd', reason: 'other' });
  return { events: out, end: t };
}

function toolCall(r: () => number, p: CodexPersona, project: string): { tool: string; input: Record<string, unknown>; response: unknown } {
  const file = () => {
    const ext = pick(r, p.exts);
    return ext === 'Dockerfile' || ext === 'Makefile'
      ? ext
      : `src/${pick(r, ['app', 'util', 'model', 'handler', 'view', 'test'])}_${Math.floor(r() * 40)}.${ext}`;
  };
  const kind = weighted(r, [
    ['shell', 45],
    ['patch', 35],
    ['mcp', p.mcpLover ? 15 : 3],
  ] as const);
  if (kind === 'shell') {
    const command = weighted(r, SHELL);
    return { tool: 'Bash', input: { command }, response: '(output)' };
  }
  if (kind === 'mcp')
    return { tool: pick(r, MCP_TOOLS), input: { query: '(query)' }, response: { content: [{ type: 'text', text: '(result)' }] } };
  const added = r() < 0.4 ? [`*** Add File: ${file()}\n+(content)`] : [];
  const updated = Array.from({ length: 1 + Math.floor(r() * 2) }, () => `*** Update File: ${file()}\n@@\n-a\n+b`);
  return {
    tool: 'apply_patch',
    input: { command: `*** Begin Patch\n${[...added, ...updated].join('\n')}\n*** End Patch\n` },
    response: `Success. Updated the following files in ~/src/${project}`,
  };
}

const session: SampleSession = ({ r, p }, start) =>
  codexSession(r, { headlessShare: p.headlessShare, mcpLover: p.mcpLover, exts: TEAMS[p.team] }, start, p.webShare);

export default {
  session,
  // Every fourth user also runs Codex CLI.
  alsoUsedBy: (index) => index % 4 === 3,
  stream: 0xc0de,
} satisfies AgentSample;
