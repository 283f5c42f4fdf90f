// Gemini CLI sessions for the sample organization: hook payloads with Gemini's event and tool names
// (collector/agents/gemini/fixtures/SOURCE.md says where each shape comes from) and the chat JSONL the
// collector reads usage from, each answer appended twice as Gemini does (first without, then with tokens).
// The approval mode and the client go through the hook's environment (AGENTMETER_GEMINI_MODE,
// AGENTMETER_CLIENT): the replay has no gemini process for the hook to read them from.
import { type AgentSample, type FileOp, type PlannedEvent, type SampleSession, TEAMS } from '../../../sample-data/plan.ts';
import { hex, pick, weighted } from '../../../sample-data/random.ts';

export interface GeminiPersona {
  /** Gemini's approval mode: default, auto_edit, yolo or plan. */
  mode: string;
  headlessShare: number;
  mcpLover: boolean;
  exts: readonly string[];
}

const MODELS = [
  ['gemini-2.5-pro', 45],
  ['gemini-2.5-flash', 30],
  ['gemini-3-flash-preview', 15],
  ['gemini-3.1-pro-preview', 10],
] as const;
const MCP = [
  ['mcp_GitHub_get_issue', 'GitHub', 'get_issue'],
  ['mcp_github_create_pull_request', 'github', 'create_pull_request'],
  ['mcp_linear_list_issues', 'linear', 'list_issues'],
  ['mcp_sentry_get_event', 'sentry', 'get_event'],
] as const;
export const GEMINI_MODES = ['default', 'auto_edit', 'yolo', 'plan'] as const;

export function geminiSession(r: () => number, p: GeminiPersona, start: number): { events: PlannedEvent[]; end: number } {
  const sessionId = `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-8${hex(r, 3)}-${hex(r, 12)}`;
  const project = pick(r, ['web-app', 'api', 'infra', 'pipelines']);
  const cwd = `~/src/${project}`;
  const stamp = new Date(start).toISOString().slice(0, 16).replaceAll(':', '-');
  const chat = `.gemini/tmp/${hex(r, 16)}/chats/session-${stamp}-${sessionId.slice(0, 8)}.jsonl`;
  const headless = r() < p.headlessShare;
  const env = { AGENTMETER_CLIENT: headless ? 'non-interactive-cli' : 'terminal-ui', AGENTMETER_GEMINI_MODE: p.mode };
  const base = { session_id: sessionId, transcript_path: `~/${chat}`, cwd };
  const model = weighted(r, MODELS);
  const out: PlannedEvent[] = [];
  let t = start;
  const tick = (minSec: number, maxSec: number) => (t += Math.round((minSec + r() * (maxSec - minSec)) * 1000));
  const emit = (payload: Record<string, unknown>, before: FileOp[] = []) =>
    out.push({ at: Math.round(t), agent: 'gemini', env, payload: { ...base, ...payload, timestamp: new Date(t).toISOString() }, before });
  const line = (record: unknown): FileOp => ({ path: chat, mode: 'append', content: `${JSON.stringify(record)}\n` });

  emit({ hook_event_name: 'SessionStart', source: 'startup' }, [
    line({
      sessionId,
      projectHash: hex(r, 64),
      startTime: new Date(t).toISOString(),
      lastUpdated: new Date(t).toISOString(),
      kind: 'main',
    }),
  ]);
  const turns = 1 + Math.floor(r() * (headless ? 1.5 : 3));
  for (let k = 0; k < turns; k++) {
    tick(5, 90);
    emit({ hook_event_name: 'BeforeAgent', prompt: `Please look at ${project} task ${k} (private prompt text)` });
    const calls = Math.floor(r() * (p.mode === 'yolo' ? 6 : 4));
    for (let c = 0; c < calls; c++) {
      tick(2, 40);
      const call = toolCall(r, p, project);
      emit({ hook_event_name: 'BeforeTool', tool_name: call.tool, tool_input: call.input, ...call.extra });
      tick(1, 20);
      emit({ hook_event_name: 'AfterTool', tool_name: call.tool, tool_input: call.input, tool_response: call.response, ...call.extra });
    }
    tick(3, 60);
    const before: FileOp[] = [];
    for (let m = 0, answers = 1 + Math.floor(r() * 2); m < answers; m++) {
      const input = 2000 + Math.floor(r() * 30_000);
      const cached = Math.floor(input * r() * 0.7);
      const thoughts = r() < 0.5 ? Math.floor(r() * 800) : 0;
      const output = 50 + Math.floor(r() * 1200);
      const message = {
        id: `${hex(r, 8)}-${hex(r, 4)}-4${hex(r, 3)}-9${hex(r, 3)}-${hex(r, 12)}`,
        timestamp: new Date(t - 1000).toISOString(),
        type: 'gemini',
        content: '(answer)',
        thoughts: [],
        tokens: null,
        model,
      };
      const tool = r() < 0.1 ? Math.floor(r() * 200) : 0;
      before.push(
        line(message),
        line({ ...message, tokens: { input, output, cached, thoughts, tool, total: input + output + thoughts + tool } }),
      );
    }
    emit({ hook_event_name: 'AfterAgent', prompt: '(private prompt text)', prompt_response: '(answer)', stop_hook_active: false }, before);
  }
  tick(5, 300);
  emit({ hook_event_name: 'SessionEnd', reason: 'exit' });
  return { events: out, end: t };
}

function toolCall(r: () => number, p: GeminiPersona, project: string) {
  const file = () => `~/src/${project}/src/${pick(r, ['app', 'util', 'handler', 'test'])}_${Math.floor(r() * 40)}.${pick(r, p.exts)}`;
  const kind = weighted(r, [
    ['read', 30],
    ['replace', 18],
    ['write', 10],
    ['shell', 20],
    ['mcp', p.mcpLover ? 10 : 2],
    ['skill', 2],
  ] as const);
  const none = {} as Record<string, unknown>;
  switch (kind) {
    case 'read':
      return {
        tool: 'read_file',
        input: { file_path: file() },
        response: { llmContent: '(file content)', returnDisplay: '' },
        extra: none,
      };
    case 'replace': {
      const fail = r() < 0.08;
      return {
        tool: 'replace',
        input: { file_path: file(), old_string: '(old)', new_string: '(new)', instruction: '(why)' },
        response: fail
          ? { llmContent: 'Failed to edit', returnDisplay: 'Error', error: { message: 'Failed to edit', type: 'edit_no_occurrence_found' } }
          : { llmContent: 'Successfully modified file', returnDisplay: { fileName: 'x', isNewFile: false } },
        extra: none,
      };
    }
    case 'write': {
      const isNewFile = r() < 0.6;
      return {
        tool: 'write_file',
        input: { file_path: file(), content: '(content)' },
        response: { llmContent: '(ok)', returnDisplay: { isNewFile } },
        extra: none,
      };
    }
    case 'shell': {
      const command = weighted(r, [
        ['npm test', 40],
        ['git status', 25],
        ['git add -A && git commit -m "Update (private message)"', 15],
        ['gh pr create --fill', 4],
        ['ls -la', 16],
      ] as const);
      return {
        tool: 'run_shell_command',
        input: { command, description: 'Run a command' },
        response: { llmContent: '(output)', returnDisplay: '(output)' },
        extra: none,
      };
    }
    case 'mcp': {
      const [tool, server, name] = pick(r, MCP);
      return {
        tool,
        input: { query: '(query)' },
        response: { llmContent: [{ text: '(result)' }], returnDisplay: '(result)' },
        extra: { mcp_context: { server_name: server, tool_name: name } },
      };
    }
    case 'skill':
      return {
        tool: 'activate_skill',
        input: { name: pick(r, ['pdf', 'docx', 'webapp-testing']) },
        response: { llmContent: '(skill)', returnDisplay: '' },
        extra: none,
      };
  }
}

const session: SampleSession = ({ r, p, u }, start) =>
  geminiSession(
    r,
    { mode: GEMINI_MODES[u % GEMINI_MODES.length]!, headlessShare: p.headlessShare, mcpLover: p.mcpLover, exts: TEAMS[p.team] },
    start,
  );

export default {
  session,
} satisfies AgentSample;
