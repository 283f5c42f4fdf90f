// Qwen Code sessions for the sample organization: hook payloads as Qwen Code sends them (its tool ids,
// approval modes, the UserPromptSubmit it fires before tool-result sends) and the chat JSONL the collector
// reads usage from (one assistant record per model call, Gemini-style usageMetadata). Same shapes as the
// fixtures of collector/agents/qwen/fixtures. Pure: draws only from the generator's random stream.
import { type AgentSample, type FileOp, type PlannedEvent, type SampleSession, TEAMS } from '../../../sample-data/plan.ts';
import { pick, uuid, weighted } from '../../../sample-data/random.ts';

export interface QwenPersona {
  /** File extensions (or names) this user's team works on. */
  exts: readonly string[];
  headlessShare: number;
  webShare: number;
  mcpLover: boolean;
}

const MODES = ['default', 'auto_edit', 'yolo', 'plan', 'auto'] as const;
const MODELS = [
  ['qwen3-coder-plus', 70],
  ['qwen3-coder-flash', 20],
  ['qwen3-max', 10],
] as const;
const MCP = ['mcp__GitHub__get_issue', 'mcp__github__search_code', 'mcp__linear__list_issues'];
const SKILLS = ['pdf', 'xlsx', 'frontend-design'];
const SHELL = [
  ['npm test', 40],
  ['git status', 25],
  ['git add -A && git commit -m "Update (private message)"', 20],
  ['gh pr create --fill', 5],
  ['ls -la', 10],
] as const;

/** One Qwen Code session from `start`: its events in time order and when it ended. */
export function qwenSession(r: () => number, p: QwenPersona, start: number): { events: PlannedEvent[]; end: number } {
  const sessionId = uuid(r);
  const project = pick(r, ['web-app', 'api', 'infra', 'pipelines']);
  const cwd = `~/src/${project}`;
  const chat = `.qwen/projects/-src-${project}/chats/${sessionId}.jsonl`;
  const web = r() < p.webShare;
  // Qwen Code's hook cannot see `qwen -p`: headless runs say so with AGENTMETER_CLIENT.
  const env: Record<string, string> = web
    ? { AGENTMETER_CLIENT: 'web' }
    : r() < p.headlessShare
      ? { AGENTMETER_CLIENT: 'non-interactive-cli' }
      : {};
  const headless = env['AGENTMETER_CLIENT'] === 'non-interactive-cli';
  const mode = pick(r, MODES);
  const model = weighted(r, MODELS);
  const out: PlannedEvent[] = [];
  let t = start;
  const tick = (minSec: number, maxSec: number) => (t += Math.round((minSec + r() * (maxSec - minSec)) * 1000));
  const base = { session_id: sessionId, transcript_path: `~/${chat}`, cwd };
  const emit = (payload: Record<string, unknown>, before: FileOp[] = []) =>
    out.push({ at: Math.round(t), agent: 'qwen', env, payload: { ...base, timestamp: new Date(t).toISOString(), ...payload }, before });
  let parent: string | null = null;
  const record = (type: string, extra: Record<string, unknown>): FileOp => {
    const id = uuid(r);
    const line = { uuid: id, parentUuid: parent, sessionId, timestamp: new Date(t).toISOString(), type, cwd, version: '0.8.2', ...extra };
    parent = id;
    return { path: chat, mode: 'append', content: `${JSON.stringify(line)}\n` };
  };
  const modelCall = (): FileOp => {
    const prompt = 2000 + Math.floor(r() * 30_000);
    const cached = Math.floor(prompt * r() * 0.8);
    const candidates = 40 + Math.floor(r() * 1200);
    const thoughts = r() < 0.3 ? Math.floor(r() * 600) : 0;
    return record('assistant', {
      model,
      message: { role: 'model', parts: [{ text: '(answer)' }] },
      usageMetadata: {
        promptTokenCount: prompt,
        candidatesTokenCount: candidates,
        ...(thoughts ? { thoughtsTokenCount: thoughts } : {}),
        ...(cached ? { cachedContentTokenCount: cached } : {}),
        totalTokenCount: prompt + candidates + thoughts,
      },
    });
  };

  emit({ hook_event_name: 'SessionStart', permission_mode: mode, source: 'startup', model });
  const turns = 1 + Math.floor(r() * (headless ? 1.5 : 3));
  for (let k = 0; k < turns; k++) {
    tick(5, 90);
    const text = `Please help with ${project} task ${k} (private prompt text)`;
    // Headless runs carry no submitted_prompt (Qwen sets it only for a TUI submission).
    emit({ hook_event_name: 'UserPromptSubmit', prompt: text, ...(headless ? {} : { submitted_prompt: text }) }, [
      record('user', { message: { role: 'user', parts: [{ text: '(prompt)' }] } }),
    ]);
    const calls = Math.floor(r() * (mode === 'yolo' ? 6 : 4));
    for (let c = 0; c < calls; c++) {
      tick(2, 30);
      const call = qwenToolCall(r, p, project);
      emit({ hook_event_name: 'PreToolUse', permission_mode: mode, tool_name: call.tool, tool_input: call.input }, [modelCall()]);
      tick(1, 20);
      if (call.fail)
        emit({
          hook_event_name: 'PostToolUseFailure',
          permission_mode: mode,
          tool_name: call.tool,
          tool_input: call.input,
          error: 'Command failed',
        });
      else
        emit({
          hook_event_name: 'PostToolUse',
          permission_mode: mode,
          tool_name: call.tool,
          tool_input: call.input,
          tool_response: call.response,
        });
      // The tool result goes back to the model: Qwen fires UserPromptSubmit again, without submitted_prompt.
      emit({ hook_event_name: 'UserPromptSubmit', prompt: '(tool result)' });
    }
    tick(3, 60);
    emit({ hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: '(answer)' }, [modelCall()]);
  }
  tick(5, 300);
  emit({ hook_event_name: 'SessionEnd', reason: 'prompt_input_exit' });
  return { events: out, end: t };
}

function qwenToolCall(
  r: () => number,
  p: QwenPersona,
  project: string,
): { tool: string; input: Record<string, unknown>; response: Record<string, unknown>; fail: boolean } {
  const file = () => {
    const ext = pick(r, p.exts);
    return ext === 'Dockerfile' || ext === 'Makefile'
      ? `~/src/${project}/${ext}`
      : `~/src/${project}/src/mod_${Math.floor(r() * 40)}.${ext}`;
  };
  const fail = r() < 0.05;
  const kind = weighted(r, [
    ['read', 30],
    ['edit', 18],
    ['write', 8],
    ['shell', 22],
    ['mcp', p.mcpLover ? 10 : 2],
    ['skill', 2],
  ] as const);
  switch (kind) {
    case 'read':
      return { tool: 'read_file', input: { absolute_path: file() }, response: { llmContent: '(file content)' }, fail };
    case 'edit':
      return {
        tool: 'edit',
        input: { file_path: file(), old_string: '(old)', new_string: '(new)' },
        response: { llmContent: 'Successfully modified file' },
        fail,
      };
    case 'write': {
      const path = file();
      const create = r() < 0.55;
      return {
        tool: 'write_file',
        input: { file_path: path, content: '(content)' },
        response: { llmContent: create ? `Successfully created and wrote to new file: ${path}.` : `Successfully overwrote file: ${path}.` },
        fail,
      };
    }
    case 'shell':
      return { tool: 'run_shell_command', input: { command: weighted(r, SHELL) }, response: { llmContent: '(output)' }, fail };
    case 'mcp':
      return { tool: pick(r, MCP), input: { query: '(query)' }, response: { llmContent: '(result)' }, fail };
    case 'skill':
      return { tool: 'skill', input: { skill: pick(r, SKILLS) }, response: { llmContent: '(skill loaded)' }, fail: false };
  }
}

const session: SampleSession = ({ r, p }, start) =>
  qwenSession(r, { exts: TEAMS[p.team], headlessShare: p.headlessShare, webShare: p.webShare, mcpLover: p.mcpLover }, start);

export default {
  session,
} satisfies AgentSample;
