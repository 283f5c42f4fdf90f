// Cursor sessions for the sample organization: hook payloads as Cursor sends them to the hooks
// `agentmeter hooks install --agent cursor` registers (conversation_id, generation_id per prompt, model,
// cursor_version, workspace_roots, user_email; postToolUse per call, afterFileEdit with its replacements,
// postToolUseFailure). Cursor keeps no token usage on the machine, so a Cursor session writes no file the
// collector reads. Same shapes as the fixtures of collector/agents/cursor/fixtures. Pure: draws only from
// the stream it is given.
import { type AgentSample, type PlannedEvent, type SampleSession, TEAMS } from '../../../sample-data/plan.ts';
import { pick, uuid, weighted } from '../../../sample-data/random.ts';

export interface CursorPersona {
  email: string;
  /** File extensions (or names) this user's team works on. */
  exts: readonly string[];
  mcpLover: boolean;
}

// Model ids as the vendors spell them (Cursor's model_id), so the demo's models are the priced ones its
// other agents use, although Cursor's usage is never counted (it keeps none on the machine).
const MODELS = [
  ['claude-sonnet-4-5', 55],
  ['gpt-5', 30],
  ['claude-opus-4-1', 15],
] as const;
const MCP = ['MCP:get_issue', 'MCP:search_code', 'MCP:list_issues'];
const SHELL = [
  ['npm test', 40],
  ['git status', 25],
  ['git add -A && git commit -m "Update (private message)"', 20],
  ['gh pr create --fill', 5],
  ['ls -la', 10],
] as const;

/** One Cursor conversation from `start`: its events in time order and when it ended. */
export function cursorSession(r: () => number, p: CursorPersona, start: number): { events: PlannedEvent[]; end: number } {
  const conversation = uuid(r);
  const project = pick(r, ['web-app', 'api', 'infra', 'pipelines']);
  const root = `~/src/${project}`;
  const model = weighted(r, MODELS);
  const out: PlannedEvent[] = [];
  let t = start;
  let generation = uuid(r);
  const tick = (minSec: number, maxSec: number) => (t += Math.round((minSec + r() * (maxSec - minSec)) * 1000));
  const emit = (payload: Record<string, unknown>) =>
    out.push({
      at: Math.round(t),
      agent: 'cursor',
      env: {},
      payload: {
        conversation_id: conversation,
        generation_id: generation,
        model,
        cursor_version: '2.1.46',
        workspace_roots: [root],
        user_email: p.email,
        transcript_path: null,
        ...payload,
      },
      before: [],
    });
  const file = () => {
    const ext = pick(r, p.exts);
    return ext === 'Dockerfile' || ext === 'Makefile' ? `${root}/${ext}` : `${root}/src/mod_${Math.floor(r() * 40)}.${ext}`;
  };

  emit({ hook_event_name: 'sessionStart', session_id: conversation, is_background_agent: false, composer_mode: 'agent' });
  const turns = 1 + Math.floor(r() * 3);
  for (let k = 0; k < turns; k++) {
    tick(5, 90);
    generation = uuid(r);
    emit({ hook_event_name: 'beforeSubmitPrompt', prompt: `Please help with ${project} task ${k} (private prompt text)`, attachments: [] });
    const calls = Math.floor(r() * 5);
    for (let c = 0; c < calls; c++) {
      tick(2, 30);
      const kind = weighted(r, [
        ['read', 30],
        ['edit', 25],
        ['shell', 25],
        ['grep', 10],
        ['mcp', p.mcpLover ? 10 : 2],
      ] as const);
      const fail = r() < 0.05;
      const id = `toolu_${uuid(r).slice(0, 8)}`;
      const call = (tool_name: string, tool_input: Record<string, unknown>) =>
        fail
          ? emit({
              hook_event_name: 'postToolUseFailure',
              tool_name,
              tool_input,
              tool_use_id: id,
              cwd: root,
              error_message: 'Tool failed',
              failure_type: 'error',
              duration: 300,
              is_interrupt: false,
            })
          : emit({
              hook_event_name: 'postToolUse',
              tool_name,
              tool_input,
              tool_output: '{"ok":true}',
              tool_use_id: id,
              cwd: root,
              duration: 800,
            });
      switch (kind) {
        case 'read':
          call('Read', { target_file: file() });
          break;
        case 'grep':
          call('Grep', { pattern: 'TODO' });
          break;
        case 'shell':
          call('Shell', { command: weighted(r, SHELL), working_directory: root });
          break;
        case 'mcp':
          call(pick(r, MCP), { query: '(query)' });
          break;
        case 'edit': {
          const path = file();
          const create = r() < 0.3;
          call('Write', { file_path: path });
          if (fail) break;
          // Cursor reports the replacements after the call: a new file is one replacement of nothing.
          const lines = 1 + Math.floor(r() * 12);
          const body = Array.from({ length: lines }, (_, i) => `line ${i} of ${k}.${c} (agent code)`).join('\n');
          emit({
            hook_event_name: 'afterFileEdit',
            file_path: path,
            edits: create ? [{ old_string: '', new_string: `${body}\n` }] : [{ old_string: '(old line)', new_string: body }],
          });
          break;
        }
      }
    }
    tick(3, 60);
    emit({ hook_event_name: 'stop', status: 'completed', loop_count: 0 });
  }
  tick(5, 300);
  emit({
    hook_event_name: 'sessionEnd',
    session_id: conversation,
    reason: 'completed',
    duration_ms: Math.round(t - start),
    is_background_agent: false,
    final_status: 'completed',
  });
  return { events: out, end: t };
}

const session: SampleSession = ({ r, p }, start) =>
  cursorSession(r, { email: p.user.email, exts: TEAMS[p.team], mcpLover: p.mcpLover }, start);

export default {
  session,
  // Every fifth user (from the fifth) also runs Cursor.
  alsoUsedBy: (index) => index % 5 === 4,
  stream: 0xc5,
} satisfies AgentSample;
