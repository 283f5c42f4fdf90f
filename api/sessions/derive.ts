// Pure derivations of the sessions API, tested on fixtures: a session's status from its messages, its
// title, and its token usage from the agent sessions its runs produced.
import type { SessionStatus, TokenUsage } from './schema.ts';

/**
 * running: a message's agent process is running (messages sent meanwhile wait behind it);
 * pending: messages wait for the computer (queued, or handed to it and not started yet);
 * idle:    nothing to do.
 */
export function sessionStatus(counts: { running: number; waiting: number }): SessionStatus {
  if (counts.running > 0) return 'running';
  if (counts.waiting > 0) return 'pending';
  return 'idle';
}

/** Pure: how many sessions are in each status, by the rule of sessionStatus. */
export function sessionCounts(rows: readonly { running: number; waiting: number }[]): Record<SessionStatus, number> {
  const counts: Record<SessionStatus, number> = { running: 0, pending: 0, idle: 0 };
  for (const r of rows) counts[sessionStatus(r)]++;
  return counts;
}

/** The first line of the first message, cut at 80 characters on a word boundary when it can be. */
export function titleFrom(text: string): string | undefined {
  const line = text
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '');
  if (!line) return undefined;
  if (line.length <= 80) return line;
  const cut = line.slice(0, 80);
  const space = cut.lastIndexOf(' ');
  return `${space > 40 ? cut.slice(0, space) : cut}…`;
}

export const ZERO_USAGE: TokenUsage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationTokens: 0,
  cacheReadTokens: 0,
  thinkingTokens: 0,
  serviceCredits: 0,
};

export const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
  cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
  thinkingTokens: a.thinkingTokens + b.thinkingTokens,
  serviceCredits: a.serviceCredits + b.serviceCredits,
});

/** The usage of one agent session that ran for an API session. */
export interface AgentSessionUsage {
  agentSessionId: string;
  /** It was the first agent session of at least one of the API session's runs; otherwise a subagent's. */
  primary: boolean;
  usage: TokenUsage;
}

/**
 * tokenUsage: the agent sessions the computer started for the session's messages (the first agent session
 * seen in each run); the agent sessions that began later within a run are its subagents (children):
 * each is listed with its usage in childInclusiveTokenUsageBySessionId, and inclusiveTokenUsage adds them.
 */
export function sessionUsage(rows: readonly AgentSessionUsage[]): {
  tokenUsage: TokenUsage;
  inclusiveTokenUsage: TokenUsage;
  childInclusiveTokenUsageBySessionId: Record<string, TokenUsage>;
} {
  let own = ZERO_USAGE;
  let inclusive = ZERO_USAGE;
  const children: Record<string, TokenUsage> = {};
  for (const row of [...rows].sort((a, b) => a.agentSessionId.localeCompare(b.agentSessionId))) {
    inclusive = addUsage(inclusive, row.usage);
    if (row.primary) own = addUsage(own, row.usage);
    else children[row.agentSessionId] = row.usage;
  }
  return { tokenUsage: own, inclusiveTokenUsage: inclusive, childInclusiveTokenUsageBySessionId: children };
}
