// A seeded, deterministic generator of realistic agent activity for an organization: raw hook payloads
// exactly as Claude Code, Droid, Codex CLI, Gemini CLI, Qwen Code and Copilot (agents/<agent>.ts) send them, and the transcripts, chats and
// session files the collector reads token usage from. Pure: (seed, last day, size) → a plan; replay.ts feeds the plan through the real hook
// and collector. Weekdays are busier than weekends; users differ in agent, client, autonomy, models,
// languages and MCP habits; MCP server names come in several cases; a few tool names are malformed.

import type { Agent } from '../common/agents.ts';
import { codexSession } from './agents/codex.ts';
import { copilotSession } from './agents/copilot.ts';
import { GEMINI_MODES, geminiSession } from './agents/gemini.ts';
import { qwenSession } from './agents/qwen.ts';
import { hex, pick, rng, uuid, weighted } from './random.ts';

export interface SampleOptions {
  seed: number;
  /** The last day with activity (YYYY-MM-DD); the plan covers `days` days up to it. */
  lastDay: string;
  days: number;
  users: number;
}

export interface SampleUser {
  email: string;
  role: 'owner' | 'manager' | 'member' | 'guest';
  agents: Agent[];
  /** Probability of working on a weekday. */
  activity: number;
  /** The kind of work they do (which files they touch): the sample's teams follow it. */
  team: string;
}

/** A file write the replay performs before running the hook (transcripts, Droid session settings). */
export interface FileOp {
  /** Path relative to the user's HOME. */
  path: string;
  /** Appended (transcript lines) or replaced (a settings file). */
  mode: 'append' | 'replace';
  content: string;
}

export interface PlannedEvent {
  at: number;
  agent: Agent;
  /** Extra environment of the hook (client hints). */
  env: Record<string, string>;
  /** The payload, with HOME-relative paths written as "~/…" (the replay expands them). */
  payload: Record<string, unknown>;
  before: FileOp[];
}

export interface SamplePlan {
  users: SampleUser[];
  /** Per user (same order), events in time order. */
  events: PlannedEvent[][];
  /** Per user: extra hooks configured in their settings besides ours (counted in hooks_by_event). */
  extraHooks: { agent: Agent; event: string; matcher: string; command: string }[][];
}

const FIRST = [
  'ana',
  'bo',
  'chen',
  'dara',
  'eli',
  'fatima',
  'goran',
  'hana',
  'ivan',
  'jun',
  'kofi',
  'lena',
  'mateo',
  'nora',
  'omar',
  'priya',
  'quinn',
  'rosa',
  'sami',
  'tariq',
  'uma',
  'vik',
  'wen',
  'xavi',
  'yara',
  'zane',
];
const TEAMS = {
  frontend: ['tsx', 'ts', 'css', 'scss', 'html', 'json', 'md'],
  backend: ['go', 'py', 'sql', 'proto', 'yaml', 'md'],
  platform: ['tf', 'sh', 'yaml', 'py', 'Dockerfile', 'Makefile'],
  mobile: ['swift', 'kt', 'java', 'json', 'gradle'],
  data: ['py', 'ipynb', 'sql', 'scala', 'csv'],
} as const;
const SLASH = ['review', 'compact', 'init', 'clear', 'pr-comments', 'security-review'];
const SKILLS = ['pdf', 'xlsx', 'docx', 'frontend-design', 'webapp-testing'];
const MCP_TOOLS = [
  'mcp__GitHub__get_issue',
  'mcp__github__list_pull_requests',
  'mcp__GITHUB__search_code',
  'mcp__github__create_pull_request',
  'mcp__Linear__list_issues',
  'mcp__linear__update_issue',
  'mcp__sentry__get_event',
  'mcp__Notion__search',
];
const MALFORMED = ['Read tool', '', 'Bash\u0000', 'x'.repeat(140), 'Edit(file)'];
const CLAUDE_MODES = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'auto'];
const DROID_MODES = ['auto-low', 'auto-medium', 'auto-high', 'spec', 'off'];

interface Persona {
  user: Omit<SampleUser, 'team'>;
  team: keyof typeof TEAMS;
  claudeMode: string;
  droidMode: string;
  headlessShare: number;
  webShare: number;
  mcpLover: boolean;
}

export function generate(options: SampleOptions): SamplePlan {
  const r = rng(options.seed);
  const personas: Persona[] = [];
  for (let i = 0; i < options.users; i++) {
    const name = `${FIRST[i % FIRST.length]}${i >= FIRST.length ? i : ''}`;
    const agents: Agent[] = weighted(r, [
      [['claude'] as Agent[], 45],
      [['droid'] as Agent[], 35],
      [['claude', 'droid'] as Agent[], 20],
      [['gemini'] as Agent[], 12],
      [['qwen'] as Agent[], 10],
      [['claude', 'qwen'] as Agent[], 5],
    ]);
    personas.push({
      user: {
        email: `${name}@sample.example.com`,
        role: i === 0 ? 'owner' : i < 3 ? 'manager' : i === options.users - 1 ? 'guest' : 'member',
        agents,
        activity: 0.35 + r() * 0.45,
      },
      team: pick(r, Object.keys(TEAMS) as (keyof typeof TEAMS)[]),
      claudeMode: weighted(
        r,
        CLAUDE_MODES.map((m, k) => [m, [30, 30, 15, 10, 15][k]!] as const),
      ),
      droidMode: weighted(
        r,
        DROID_MODES.map((m, k) => [m, [30, 30, 15, 15, 10][k]!] as const),
      ),
      // Every organization has some CI-style headless users and some web users.
      headlessShare: i % 5 === 2 || r() < 0.25 ? 0.3 + r() * 0.4 : 0.03,
      webShare: i % 7 === 1 ? 0.7 : r() < 0.2 ? 0.3 : 0,
      mcpLover: r() < 0.4,
    });
  }

  const last = Date.parse(`${options.lastDay}T00:00:00Z`);
  const events: PlannedEvent[][] = personas.map(() => []);
  // Every fourth user also runs Codex CLI; its sessions draw from their own stream (codexRandom).
  for (const [i, p] of personas.entries()) if (i % 4 === 3) p.user.agents.push('codex');
  // Every fifth user (from the third) also runs GitHub Copilot, in VS Code or its CLI.
  for (const [i, p] of personas.entries()) if (i % 5 === 2) p.user.agents.push('copilot');
  const codexRandom = rng(options.seed ^ 0xc0de);
  const extraHooks = personas.map((p) =>
    r() < 0.3 ? [{ agent: p.user.agents[0]!, event: 'PostToolUse', matcher: 'Edit|Write', command: 'npx prettier --write "$FILE"' }] : [],
  );
  // Cumulative Droid token usage per session, and message counters, live across the replay.
  for (let d = options.days - 1; d >= 0; d--) {
    const day = last - d * 86_400_000;
    const weekday = new Date(day).getUTCDay();
    const weekend = weekday === 0 || weekday === 6;
    personas.forEach((p, u) => {
      const chance = weekend ? p.user.activity * 0.15 : p.user.activity;
      if (r() >= chance) return;
      const sessions = 1 + Math.floor(r() * (weekend ? 1.2 : 1.8));
      let clock = day + (8 + r() * 3) * 3_600_000;
      for (let s = 0; s < sessions; s++) {
        const agent = pick(r, p.user.agents);
        const planned = SESSIONS[agent]({ r, codexRandom, p, u }, clock);
        events[u]!.push(...planned.events);
        clock = planned.end + (20 + r() * 120) * 60_000;
      }
    });
  }
  return { users: personas.map((p) => ({ ...p.user, team: p.team })), events, extraHooks };
}

type SessionPlan = (
  ctx: { r: () => number; codexRandom: () => number; p: Persona; u: number },
  start: number,
) => { events: PlannedEvent[]; end: number };

/**
 * One session of each agent (sample-data/agents/<agent>.ts; Claude Code's and Droid's, which share most of
 * their shape, below): a table over every agent, so an agent without a generator does not compile.
 */
const SESSIONS: Record<Agent, SessionPlan> = {
  claude: ({ r, p }, start) => session(r, p, 'claude', start),
  droid: ({ r, p }, start) => session(r, p, 'droid', start),
  codex: ({ codexRandom, p }, start) =>
    codexSession(codexRandom, { headlessShare: p.headlessShare, mcpLover: p.mcpLover, exts: TEAMS[p.team] }, start, p.webShare),
  gemini: ({ r, p, u }, start) =>
    geminiSession(
      r,
      { mode: GEMINI_MODES[u % GEMINI_MODES.length]!, headlessShare: p.headlessShare, mcpLover: p.mcpLover, exts: TEAMS[p.team] },
      start,
    ),
  qwen: ({ r, p }, start) =>
    qwenSession(r, { exts: TEAMS[p.team], headlessShare: p.headlessShare, webShare: p.webShare, mcpLover: p.mcpLover }, start),
  // Its own stream per session (one draw of r), so Copilot's shapes can change without moving the rest.
  copilot: ({ r, p }, start) =>
    copilotSession(rng(Math.floor(r() * 2 ** 31)), { exts: TEAMS[p.team], headlessShare: p.headlessShare, mcpLover: p.mcpLover }, start),
};

function session(r: () => number, p: Persona, agent: 'claude' | 'droid', start: number): { events: PlannedEvent[]; end: number } {
  const sessionId = uuid(r);
  const out: PlannedEvent[] = [];
  const project = pick(r, ['web-app', 'api', 'infra', 'mobile', 'pipelines', 'design-system']);
  const cwd = `~/src/${project}`;
  const web = r() < p.webShare;
  const headless = !web && r() < p.headlessShare;
  const env: Record<string, string> = web
    ? { AGENTMETER_CLIENT: 'web' }
    : headless
      ? agent === 'claude'
        ? { CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' }
        : { AGENTMETER_CLIENT: 'non-interactive-cli' }
      : agent === 'claude'
        ? { CLAUDE_CODE_ENTRYPOINT: 'cli' }
        : {};
  const transcript =
    agent === 'claude' ? `~/.claude/projects/-src-${project}/${sessionId}.jsonl` : `~/.factory/sessions/-src-${project}/${sessionId}.jsonl`;
  const settingsPath = `.factory/sessions/-src-${project}/${sessionId}.settings.json`;
  const mode = agent === 'claude' ? p.claudeMode : p.droidMode;
  const base = { session_id: sessionId, transcript_path: transcript, cwd, permission_mode: mode };
  const model =
    agent === 'claude'
      ? weighted(r, [
          ['claude-sonnet-4-5-20250929', 70],
          ['claude-opus-4-1-20250805', 20],
          ['claude-haiku-4-5-20251001', 10],
        ] as const)
      : weighted(r, [
          ['gpt-5-codex', 40],
          ['claude-sonnet-4-5-20250929', 40],
          ['claude-opus-4-1-20250805', 15],
          ['glm-4.6', 5],
        ] as const);
  const thinkingUser = r() < 0.35;
  let t = start;
  const tick = (minSec: number, maxSec: number) => (t += Math.round((minSec + r() * (maxSec - minSec)) * 1000));
  const emit = (payload: Record<string, unknown>, before: FileOp[] = []) =>
    out.push({ at: Math.round(t), agent, env, payload: { ...base, ...payload }, before });
  const totals = { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0, thinkingTokens: 0 };

  emit({ hook_event_name: 'SessionStart', source: 'startup' });
  const turns = 1 + Math.floor(r() * (headless ? 2 : 3.5));
  for (let k = 0; k < turns; k++) {
    tick(5, 90);
    const slash = r() < 0.1 ? `/${pick(r, SLASH)}` : '';
    emit({
      hook_event_name: 'UserPromptSubmit',
      prompt: `${slash}${slash ? ' ' : ''}Please help with ${project} task ${k} (private prompt text)`,
    });
    const tools = Math.floor(r() * (mode.includes('high') || mode === 'bypassPermissions' ? 6 : 4));
    for (let c = 0; c < tools; c++) {
      tick(2, 40);
      const call = toolCall(r, p, agent, project);
      emit({ hook_event_name: 'PreToolUse', tool_name: call.tool, tool_input: call.input });
      tick(1, 20);
      if (call.fail && agent === 'claude')
        emit({ hook_event_name: 'PostToolUseFailure', tool_name: call.tool, tool_input: call.input, error: 'Command failed' });
      else
        emit({
          hook_event_name: 'PostToolUse',
          tool_name: call.tool,
          tool_input: call.input,
          tool_response: call.fail ? { success: false, error: 'failed' } : call.response,
        });
    }
    // The assistant's answer to the turn: usage in the transcript (and Droid's cumulative settings).
    tick(3, 60);
    const messages = 1 + Math.floor(r() * 3);
    const before: FileOp[] = [];
    for (let m = 0; m < messages; m++) {
      const id = `msg_${hex(r, 24)}`;
      const input = 200 + Math.floor(r() * 4000);
      const output = 50 + Math.floor(r() * 1500);
      const cacheRead = Math.floor(r() * 30_000);
      const cacheWrite = r() < 0.3 ? Math.floor(r() * 5000) : 0;
      const thinking = thinkingUser && r() < 0.6;
      const ts = new Date(t - (messages - m) * 2000).toISOString();
      if (agent === 'claude') {
        // A message streams over 1-3 lines; the last carries the final output count.
        const lines = 1 + Math.floor(r() * 3);
        for (let l = 1; l <= lines; l++) {
          before.push({
            path: transcript.slice(2),
            mode: 'append',
            content: `${JSON.stringify({
              type: 'assistant',
              sessionId,
              isSidechain: false,
              timestamp: ts,
              // Claude Code writes the API request on every line of an answer (not drawn from r: the
              // rest of the data stays as it was).
              requestId: `req_${id.slice(4)}`,
              message: {
                id,
                role: 'assistant',
                model,
                content: [...(thinking ? [{ type: 'thinking', thinking: '(reasoning)' }] : []), { type: 'text', text: '(answer)' }],
                usage: {
                  input_tokens: input,
                  output_tokens: Math.round((output * l) / lines),
                  cache_read_input_tokens: cacheRead,
                  cache_creation_input_tokens: cacheWrite,
                },
              },
            })}\n`,
          });
        }
      } else {
        totals.inputTokens += input;
        totals.outputTokens += output;
        totals.cacheReadTokens += cacheRead;
        totals.cacheCreationTokens += cacheWrite;
        if (thinking) totals.thinkingTokens += Math.floor(output / 3);
        before.push({
          path: transcript.slice(2),
          mode: 'append',
          content: `${JSON.stringify({ type: 'message', id, timestamp: ts, message: { role: 'assistant', model } })}\n`,
        });
      }
    }
    if (agent === 'droid')
      before.push({ path: settingsPath, mode: 'replace', content: JSON.stringify({ model, tokenUsage: { ...totals } }) });
    emit({ hook_event_name: 'Stop', stop_hook_active: false }, before);
    if (r() < 0.15) {
      tick(1, 30);
      emit({ hook_event_name: 'Notification', message: 'Claude needs your permission to use Bash' });
    }
  }
  tick(5, 300);
  emit({ hook_event_name: 'SessionEnd', reason: r() < 0.05 ? 'error' : 'other' });
  return { events: out, end: t };
}

interface Call {
  tool: string;
  input: Record<string, unknown>;
  response: Record<string, unknown>;
  fail: boolean;
}

function toolCall(r: () => number, p: Persona, agent: Agent, project: string): Call {
  const exts = TEAMS[p.team];
  const file = () => {
    const ext = pick(r, exts);
    return ext === 'Dockerfile' || ext === 'Makefile'
      ? `~/src/${project}/${ext}`
      : `~/src/${project}/src/${pick(r, ['app', 'util', 'model', 'handler', 'view', 'test'])}_${Math.floor(r() * 40)}.${ext}`;
  };
  const fail = r() < 0.05;
  const shell = agent === 'claude' ? 'Bash' : 'Execute';
  const kind = weighted(r, [
    ['read', 28],
    ['edit', 16],
    ['write', 8],
    ['patch', agent === 'droid' ? 6 : 0],
    ['shell', 18],
    ['grep', 9],
    ['glob', 5],
    ['mcp', p.mcpLover ? 10 : 2],
    ['skill', 2],
    ['task', agent === 'claude' ? 3 : 0],
    ['malformed', 0.4],
  ] as const);
  switch (kind) {
    case 'read':
      return { tool: 'Read', input: { file_path: file() }, response: { type: 'text', file: { content: '(file content)' } }, fail };
    case 'edit':
      return {
        tool: r() < 0.8 ? 'Edit' : 'MultiEdit',
        input: { file_path: file(), old_string: '(old)', new_string: '(new)' },
        response: { filePath: file() },
        fail,
      };
    case 'write': {
      const create = r() < 0.55;
      return agent === 'claude'
        ? { tool: 'Write', input: { file_path: file(), content: '(content)' }, response: { type: create ? 'create' : 'update' }, fail }
        : { tool: create ? 'Create' : 'Edit', input: { file_path: file(), content: '(content)' }, response: {}, fail };
    }
    case 'patch': {
      const files = Array.from({ length: 1 + Math.floor(r() * 3) }, file).map((f) => f.replace(`~/src/${project}/`, ''));
      return {
        tool: 'ApplyPatch',
        input: { patch: `*** Begin Patch\n${files.map((f) => `*** Update File: ${f}\n@@\n-a\n+b`).join('\n')}\n*** End Patch` },
        response: {},
        fail,
      };
    }
    case 'shell': {
      const command = weighted(r, [
        ['npm test', 30],
        ['git status', 20],
        ['git diff --stat', 10],
        ['git add -A && git commit -m "Update (private message)"', 14],
        ['git commit --dry-run', 1],
        ['git push origin HEAD && gh pr create --fill', 4],
        ['ls -la', 10],
        ['make build', 8],
      ] as const);
      return {
        tool: shell,
        input: { command, description: 'Run a command' },
        response: { stdout: '(output)', stderr: '', interrupted: false },
        fail,
      };
    }
    case 'grep':
      return { tool: 'Grep', input: { pattern: 'TODO', path: `~/src/${project}` }, response: { numFiles: 3 }, fail };
    case 'glob':
      return { tool: 'Glob', input: { pattern: '**/*.ts' }, response: { numFiles: 12 }, fail };
    case 'mcp':
      return { tool: pick(r, MCP_TOOLS), input: { query: '(query)' }, response: { result: '(result)' }, fail };
    case 'skill':
      return { tool: 'Skill', input: { skill: pick(r, SKILLS) }, response: { success: true }, fail: false };
    case 'task':
      return {
        tool: 'Task',
        input: { description: 'Explore', prompt: '(sub prompt)', subagent_type: 'Explore' },
        response: { content: '(summary)' },
        fail,
      };
    case 'malformed':
      return { tool: pick(r, MALFORMED), input: {}, response: {}, fail: false };
  }
}
