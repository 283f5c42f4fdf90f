// A seeded, deterministic generator of realistic agent activity for an organization: raw hook payloads
// exactly as Claude Code, Droid, Codex CLI, Gemini CLI, Qwen Code, Cursor and Copilot (collector/agents/<agent>/sample.ts) send them, and the transcripts, chats and
// session files the collector reads token usage from. Pure: (seed, last day, size) → a plan; replay.ts feeds the plan through the real hook
// and collector. Weekdays are busier than weekends; users differ in agent, client, autonomy, models,
// languages and MCP habits; MCP server names come in several cases; a few tool names are malformed.

import { claudeSample } from '../collector/agents/claude/sample.ts';
import { codexSample } from '../collector/agents/codex/sample.ts';
import { copilotSample } from '../collector/agents/copilot/sample.ts';
import { cursorSample } from '../collector/agents/cursor/sample.ts';
import { droidSample } from '../collector/agents/droid/sample.ts';
import { geminiSample } from '../collector/agents/gemini/sample.ts';
import { qwenSample } from '../collector/agents/qwen/sample.ts';
import type { Agent } from '../common/agents.ts';
import { type AgentSample, type Persona, type PlannedEvent, type SampleOptions, type SamplePlan, TEAMS } from './plan.ts';
import { pick, rng, weighted } from './random.ts';

export type { FileOp, PlannedEvent, SampleOptions, SamplePlan, SampleUser } from './plan.ts';

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
const CLAUDE_MODES = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'auto'];
const DROID_MODES = ['auto-low', 'auto-medium', 'auto-high', 'spec', 'off'];

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
  // Every fifth user also runs Cursor, from a stream of its own (cursorRandom).
  for (const [i, p] of personas.entries()) if (i % 5 === 4) p.user.agents.push('cursor');
  const cursorRandom = rng(options.seed ^ 0xc5);
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
        const planned = SESSIONS[agent]({ r, codexRandom, cursorRandom, p, u }, clock);
        events[u]!.push(...planned.events);
        clock = planned.end + (20 + r() * 120) * 60_000;
      }
    });
  }
  return { users: personas.map((p) => ({ ...p.user, team: p.team })), events, extraHooks };
}

/**
 * One session of each agent, from the agent's own folder (collector/agents/<agent>/sample.ts): a table over
 * every agent, so an agent without a sample does not compile.
 */
const SESSIONS: Record<Agent, AgentSample> = {
  claude: claudeSample,
  droid: droidSample,
  codex: codexSample,
  gemini: geminiSample,
  qwen: qwenSample,
  cursor: cursorSample,
  copilot: copilotSample,
};
