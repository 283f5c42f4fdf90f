// GitHub Copilot sessions for the sample organization: VS Code's Copilot agent (its camelCase
// `hookEventName`/`sessionId` payloads and its tool ids, run through the Claude Code hook it loads from
// ~/.claude/settings.json or through ~/.copilot/hooks) and Copilot CLI (the PascalCase payloads the installed
// hook file gets). Copilot keeps no token usage on the machine: each model call's tokens arrive as the
// collector's OpenTelemetry receiver spools them (collector/otel/spooled.ts), one file per call. Same shapes
// as collector/agents/copilot/fixtures. Pure: draws only from the stream it is given.
import { type AgentSample, type FileOp, type PlannedEvent, type SampleSession, TEAMS } from '../../../sample-data/plan.ts';
import { hex, pick, rng, uuid, weighted } from '../../../sample-data/random.ts';

export interface CopilotPersona {
  exts: readonly string[];
  headlessShare: number;
  mcpLover: boolean;
}

const MODELS = [
  ['gpt-5.4-mini', 35],
  ['claude-sonnet-4-5-20250929', 40],
  ['gpt-5-mini', 25],
] as const;
const MCP = ['mcp__github__create_pull_request', 'mcp__github__search_issues'];

/** One Copilot session from `start` (VS Code's agent or Copilot CLI): its events in time order and when it ended. */
export function copilotSession(r: () => number, p: CopilotPersona, start: number): { events: PlannedEvent[]; end: number } {
  const sessionId = uuid(r);
  const project = pick(r, ['web-app', 'api', 'infra', 'design-system']);
  const cwd = `~/src/${project}`;
  const vscode = r() < 0.6;
  // The CLI's hook cannot see `copilot -p`: headless runs say so with AGENTMETER_CLIENT.
  const env: Record<string, string> = !vscode && r() < p.headlessShare ? { AGENTMETER_CLIENT: 'non-interactive-cli' } : {};
  // VS Code runs the hook registered for Claude Code (agent claude) or ours in ~/.copilot/hooks.
  const agent = vscode && r() < 0.5 ? 'claude' : 'copilot';
  const model = weighted(r, MODELS);
  const out: PlannedEvent[] = [];
  let t = start;
  let call = 0;
  const tick = (minSec: number, maxSec: number) => (t += Math.round((minSec + r() * (maxSec - minSec)) * 1000));
  const emit = (event: string, payload: Record<string, unknown>, before: FileOp[] = []) => {
    const timestamp = new Date(t).toISOString();
    const common = vscode
      ? {
          timestamp,
          cwd,
          sessionId,
          hookEventName: event,
          transcript_path: `~/.config/Code/User/workspaceStorage/${sessionId.slice(0, 8)}/GitHub.copilot-chat/transcripts/${sessionId}.json`,
        }
      : { timestamp, cwd, session_id: sessionId, hook_event_name: event };
    out.push({ at: Math.round(t), agent, env, payload: { ...common, ...payload }, before });
  };
  /** One model call's tokens, as the receiver spools Copilot's gen_ai.client.inference.operation.details event. */
  const modelCall = (): FileOp => {
    const input = 3000 + Math.floor(r() * 40_000);
    const cacheRead = Math.floor(input * r() * 0.7);
    const fact = {
      kind: 'usage',
      session_id: sessionId,
      ts: Math.round(t),
      request_id: `chatcmpl-${hex(r, 24)}`,
      model,
      input_tokens: input - cacheRead,
      output_tokens: 60 + Math.floor(r() * 1500),
      cache_read_tokens: cacheRead,
      cache_write_tokens: 0,
    };
    return {
      path: `.agentmeter/spool/new/otel.sample.${sessionId}.${++call}`,
      mode: 'replace',
      content: `agentmeter-spool=1\nagent=copilot\nsource=otel\n\n${JSON.stringify({ facts: [fact] })}`,
    };
  };

  emit('SessionStart', { source: 'new' });
  const turns = 1 + Math.floor(r() * 3);
  for (let k = 0; k < turns; k++) {
    tick(5, 90);
    emit('UserPromptSubmit', { prompt: `Please help with ${project} task ${k} (private prompt text)` });
    const calls = Math.floor(r() * 4);
    for (let c = 0; c < calls; c++) {
      tick(2, 30);
      const tool = copilotToolCall(r, p, project, vscode);
      const id = `toolu_${hex(r, 12)}`;
      emit('PreToolUse', { tool_name: tool.tool, tool_input: tool.input, ...(vscode ? { tool_use_id: id } : {}) }, [modelCall()]);
      tick(1, 20);
      emit('PostToolUse', {
        tool_name: tool.tool,
        tool_input: tool.input,
        ...(vscode
          ? { tool_use_id: id, tool_response: tool.fail ? { success: false } : '(result)' }
          : { tool_result: { result_type: tool.fail ? 'failure' : 'success', text_result_for_llm: '(result)' } }),
      });
    }
    tick(3, 60);
    emit('Stop', vscode ? { stop_hook_active: false } : {}, [modelCall()]);
  }
  tick(5, 300);
  if (!vscode) emit('SessionEnd', { reason: 'complete' });
  return { events: out, end: t };
}

function copilotToolCall(
  r: () => number,
  p: CopilotPersona,
  project: string,
  vscode: boolean,
): { tool: string; input: Record<string, unknown>; fail: boolean } {
  const file = () => `~/src/${project}/src/part_${Math.floor(r() * 40)}.${pick(r, p.exts)}`;
  const fail = r() < 0.05;
  const kind = weighted(r, [
    ['read', 30],
    ['edit', 20],
    ['create', 8],
    ['shell', 22],
    ['mcp', p.mcpLover ? 8 : 2],
  ] as const);
  switch (kind) {
    case 'read':
      return { tool: vscode ? 'read_file' : 'Read', input: vscode ? { filePath: file() } : { path: file() }, fail };
    case 'edit':
      return vscode
        ? { tool: 'replace_string_in_file', input: { filePath: file(), oldString: '(old)', newString: '(new)\n(more)' }, fail }
        : { tool: 'Edit', input: { path: file(), old_str: '(old)', new_str: '(new)\n(more)' }, fail };
    case 'create':
      return vscode
        ? { tool: 'create_file', input: { filePath: file(), content: '(content)\n(line)' }, fail }
        : { tool: 'Write', input: { path: file(), file_text: '(content)\n(line)' }, fail };
    case 'shell': {
      const command = weighted(r, [
        ['npm test', 40],
        ['git status', 30],
        ['git add -A && git commit -m "Update (private message)"', 20],
        ['ls', 10],
      ] as const);
      return { tool: vscode ? 'run_in_terminal' : 'Bash', input: { command }, fail };
    }
    case 'mcp':
      return { tool: pick(r, MCP), input: { query: '(query)' }, fail };
  }
}

// Its own stream per session (one draw of r), so Copilot's shapes can change without moving the rest.
const session: SampleSession = ({ r, p }, start) =>
  copilotSession(rng(Math.floor(r() * 2 ** 31)), { exts: TEAMS[p.team], headlessShare: p.headlessShare, mcpLover: p.mcpLover }, start);

export default {
  session,
  // Every fifth user (from the third) also runs GitHub Copilot, in VS Code or its CLI.
  alsoUsedBy: (index) => index % 5 === 2,
} satisfies AgentSample;
