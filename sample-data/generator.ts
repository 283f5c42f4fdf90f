// A seeded, deterministic generator of realistic agent activity for an organization: raw hook payloads
// exactly as Claude Code, Droid, Codex CLI, Gemini CLI, Qwen Code, Cursor and Copilot (collector/agents/<agent>/sample.ts) send them, and the transcripts, chats and
// session files the collector reads token usage from. Pure: (seed, last day, size) → a plan; replay.ts feeds the plan through the real hook
// and collector. Weekdays are busier than weekends; users differ in agent, client, autonomy, models,
// languages and MCP habits; MCP server names come in several cases; a few tool names are malformed.

import { AGENTS, type Agent, eachAgent, isObject } from '../common/agents.ts';
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

/** An agent's sample, as far as a value shows it; its folder declares it `satisfies AgentSample`. */
const isSample = (part: unknown): part is AgentSample => isObject(part) && typeof part['session'] === 'function';

/** Each agent's part of the demo organization, from its folder (collector/agents/<agent>/sample.ts). */
export const SAMPLES = await eachAgent('sample.ts', (agent) => import(`../collector/agents/${agent}/sample.ts`), isSample);

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
  // Besides the agents drawn above, each agent's sample says who else uses it, in the table's order.
  for (const agent of AGENTS) for (const [i, p] of personas.entries()) if (SAMPLES[agent].alsoUsedBy?.(i)) p.user.agents.push(agent);
  const streams = Object.fromEntries(
    AGENTS.map((agent) => {
      const salt = SAMPLES[agent].stream;
      return [agent, salt === undefined ? r : rng(options.seed ^ salt)];
    }),
  ) as Record<Agent, () => number>;
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
        const planned = SAMPLES[agent].session({ r: streams[agent], p, u }, clock);
        events[u]!.push(...planned.events);
        clock = planned.end + (20 + r() * 120) * 60_000;
      }
    });
  }
  return { users: personas.map((p) => ({ ...p.user, team: p.team })), events, extraHooks };
}
