// Pure: decoded OTLP signals → the facts agentmeter keeps (edit decisions, token usage), by agent, using
// each agent's names (agents.ts). Identity attributes (`user.email`, `user.account_uuid`, `organization.id`…)
// are never read: the server takes identity from the collector's key. Of a log event only the attributes
// named in agents.ts are read, so prompt text and tool arguments never reach a fact.
import { createHash } from 'node:crypto';
import type { Agent } from '../agents.ts';
import { type AgentName, describeZodError, type EditDecision, MAX_DECISIONS, MAX_TOKENS, WireRecord } from '../wire.ts';
import { type DecisionSignal, OTEL_AGENTS, type OtelAgent, otelAgentOf, sameSignal, type UsageSignal } from './agents.ts';
import { type Attributes, boundMessage, type MetricPoint, type Signal } from './otlp.ts';

export interface DecisionFact {
  kind: 'decision';
  session_id: string;
  ts: number;
  decision: EditDecision;
  count: number;
  tool_name?: string;
  language?: string;
}

export interface UsageFact {
  kind: 'usage';
  session_id: string;
  ts: number;
  /** The model call's id as the agent names it: the same call exported again is one call. */
  request_id: string;
  model: string;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  /** Reasoning tokens, part of output (the tier is thinking when any); absent when the agent names none. */
  thinking_tokens?: number;
}

export type OtelFact = DecisionFact | UsageFact;

/**
 * A mapped signal whose fact cannot be stored (a token count of 1e12, a negative or fractional count): the
 * exporter is told (OTLP's partial success counts these) and the receiver keeps it in quarantine.
 */
export interface RefusedFact {
  agent: Agent;
  /** What was read of the signal: the fact's fields as the agent gave them (never a prompt or a body). */
  fact: Record<string, unknown>;
  reason: string;
}

export interface MapResult {
  facts: Map<Agent, OtelFact[]>;
  /** One per data point, log record or span refused: what OTLP's `rejected_*` counts. */
  refused: RefusedFact[];
  /** Signals of no agent we know, or of a name we do not map, by name ("span" for every span). */
  unmapped: Map<string, number>;
  /** What the request's cumulative points changed in the totals: `totals.restore(undo)` if its facts are not kept. */
  undo: TotalsUndo[];
  /** Signals known and left on purpose (agents.ts `ignored`, or a decision of a tool that proposes no edit). */
  ignored: Map<string, number>;
}

/** Session id when the signal names none: the facts still count for the day, agent and tool. */
export const UNKNOWN_SESSION = 'unknown';
const MAX_TEXT = 256;
const EARLIEST = 946_684_800_000;
const LATEST = 4_102_444_800_000;

/** A series' last reading: its start, its running total and when it was read (absent in older saved totals). */
export interface Reading {
  startMs: number;
  value: number;
  timeMs?: number;
}

/** What one reading changed in the running totals (CumulativeTotals.restore puts it back). */
export interface TotalsUndo {
  key: string;
  previous: Reading | undefined;
  set: Reading;
  legacyKey?: string;
  legacy?: Reading;
}

const sortedEntries = (attributes: Attributes) => Object.entries(attributes).sort(([a], [b]) => (a < b ? -1 : 1));

/**
 * Running totals of cumulative counters, so each data point counts what is new since the one before it
 * (an agent exporting cumulative sums repeats the whole total every interval). A series is the agent, the
 * metric, the resource's and the point's attributes and the start time: two processes of an agent that
 * export the same attributes (Claude Code without its session id on metrics) are two series, told apart by
 * their start, and a new start (a restarted process) is a new series counted from zero. Keys are digests,
 * so the saved totals hold no attribute values.
 */
export class CumulativeTotals {
  private readonly last = new Map<string, Reading>();
  changed = false;

  constructor(
    entries: [string, Reading][] = [],
    private readonly max = 50_000,
  ) {
    for (const [key, value] of entries) this.last.set(key, value);
  }

  /**
   * The part of `point` not counted before. With `undo`, records what it changed so that `restore` can put
   * it back when the facts are not kept (a request that failed): the next export then counts them.
   */
  delta(agent: Agent, point: MetricPoint, undo?: TotalsUndo[]): number {
    if (!point.cumulative) return point.value;
    const series = JSON.stringify([agent, point.name, sortedEntries(point.resource), sortedEntries(point.attributes), point.startMs]);
    const key = createHash('sha256').update(series).digest('base64url');
    // Totals saved before series had their start and resource in the key: the same start is the same series.
    const legacyKey = `${agent}\0${point.name}\0${JSON.stringify(sortedEntries(point.attributes))}`;
    const legacy = this.last.get(legacyKey);
    const current = this.last.get(key);
    const fromLegacy = !current && legacy?.startMs === point.startMs ? legacy : undefined;
    const before = current ?? fromLegacy;
    // A reading older than the last one (an export delivered late, after a later one) adds nothing: read as
    // a total that went down, it would count again what the later reading already counted.
    if (before?.timeMs && point.timeMs && point.timeMs < before.timeMs) return 0;
    this.last.delete(key);
    if (fromLegacy) this.last.delete(legacyKey);
    // The oldest series goes first when full: a series not seen for that long is over.
    if (this.last.size >= this.max) this.last.delete(this.last.keys().next().value!);
    const set: Reading = { startMs: point.startMs, value: point.value, ...(point.timeMs ? { timeMs: point.timeMs } : {}) };
    this.last.set(key, set);
    this.changed = true;
    undo?.push({ key, previous: current, set, ...(fromLegacy ? { legacyKey, legacy: fromLegacy } : {}) });
    // A total lower than an earlier one: the counter was reset without a new start; it counts from zero.
    if (!before || point.value < before.value) return point.value;
    return point.value - before.value;
  }

  /**
   * Undoes what `delta` recorded, latest first. A series another request moved on since is left as it is:
   * that request counted from this one's value, and putting the older one back would count it twice.
   */
  restore(undo: readonly TotalsUndo[]): void {
    for (const u of [...undo].reverse()) {
      if (this.last.get(u.key) !== u.set) continue;
      if (u.previous) this.last.set(u.key, u.previous);
      else this.last.delete(u.key);
      if (u.legacyKey && u.legacy) this.last.set(u.legacyKey, u.legacy);
      this.changed = true;
    }
  }

  entries(): [string, Reading][] {
    return [...this.last.entries()];
  }
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== ''
    ? value.trim().slice(0, MAX_TEXT)
    : typeof value === 'number'
      ? String(value)
      : undefined;

function firstText(attributes: Attributes, names: readonly string[]): string | undefined {
  for (const name of names) {
    const value = text(attributes[name]);
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * A token count an attribute holds (agents send numbers or decimal strings): 0 when absent, the count as
 * given when it is not a whole number from 0 to MAX_TOKENS (the caller refuses it).
 */
function tokens(attributes: Attributes, name: string | undefined): { n: number } | { bad: string | number | boolean } {
  if (!name) return { n: 0 };
  const value = attributes[name];
  if (value === undefined) return { n: 0 };
  const n = typeof value === 'number' ? value : typeof value === 'string' && /^\d{1,15}$/.test(value.trim()) ? Number(value) : Number.NaN;
  return Number.isInteger(n) && n >= 0 && n <= MAX_TOKENS ? { n } : { bad: value };
}

/** Pure: why a fact cannot be stored as a wire record (the server's own check), or undefined. */
function wireProblem(fact: OtelFact, agent: Agent): string | undefined {
  const checked = WireRecord.safeParse(factRecord(fact, agent, 'otel'));
  return checked.success ? undefined : describeZodError(checked.error);
}

/** The most characters of a value a refusal repeats: an agent may put megabytes where a count belongs. */
export const MAX_QUOTED = 64;

/** Pure: a value as a reason quotes it, its first MAX_QUOTED characters only, saying so when cut. */
export function quoteValue(value: string | number | boolean): string {
  const s = String(value);
  if (s.length <= MAX_QUOTED) return JSON.stringify(value);
  return `${JSON.stringify(s.slice(0, MAX_QUOTED))}… (cut, ${s.length} characters)`;
}

/** Pure: text as kept for a person to read (a quarantined value, an unmapped name): its first MAX_QUOTED characters. */
export const cutText = (text: string) =>
  text.length > MAX_QUOTED ? `${text.slice(0, MAX_QUOTED)}… (cut, ${text.length} characters)` : text;

/** Pure: a refused value as the quarantine keeps it: cut when a longer string. */
const keptValue = (value: string | number | boolean) => (typeof value === 'string' ? cutText(value) : value);

const timeOf = (ms: number, now: number) => (ms >= EARLIEST && ms <= LATEST ? ms : now);

function add(map: Map<string, number>, key: string, n = 1): void {
  map.set(key, (map.get(key) ?? 0) + n);
}

function decisionFact(
  spec: DecisionSignal,
  signal: MetricPoint | Extract<Signal, { kind: 'log' }>,
  agent: OtelAgent,
  count: number,
  now: number,
): DecisionFact | string {
  const attributes = signal.attributes;
  const decision = spec.decisions[String(attributes[spec.decisionAttribute] ?? '')];
  if (!decision) return `${spec.name} (no accept or reject decision)`;
  const tool = firstText(attributes, spec.toolAttributes);
  if (spec.editTools && (!tool || !spec.editTools.includes(tool))) return `${spec.name} (a tool that proposes no edit)`;
  const fact: DecisionFact = {
    kind: 'decision',
    // Gemini CLI names the session on the resource; a session id is no identity.
    session_id: firstText(attributes, agent.sessionAttributes) ?? firstText(signal.resource, agent.sessionAttributes) ?? UNKNOWN_SESSION,
    ts: timeOf(signal.timeMs, now),
    decision,
    count,
  };
  if (tool) fact.tool_name = tool;
  const language = spec.languageAttribute ? text(attributes[spec.languageAttribute]) : undefined;
  if (language) fact.language = language.slice(0, 128);
  return fact;
}

/** A usage signal's fact; undefined when it names no request or model; a refusal when a count is out of range. */
function usageFact(
  spec: UsageSignal,
  attributes: Attributes,
  resource: Attributes,
  agent: OtelAgent,
  timeMs: number,
  now: number,
): UsageFact | Omit<RefusedFact, 'agent'> | undefined {
  const requestId = text(attributes[spec.requestId]);
  const model = text(attributes[spec.model]) ?? (spec.fallbackModel ? text(attributes[spec.fallbackModel]) : undefined);
  if (!requestId || !model) return undefined;
  const session_id = firstText(attributes, agent.sessionAttributes) ?? firstText(resource, agent.sessionAttributes) ?? UNKNOWN_SESSION;
  const names = [spec.input, spec.output, spec.cacheRead, spec.cacheWrite, spec.thinking];
  const counts = names.map((name) => tokens(attributes, name));
  const bad = counts.flatMap((c, i) => ('bad' in c ? [[names[i]!, c.bad] as const] : []));
  if (bad.length)
    return {
      fact: {
        kind: 'usage',
        session_id,
        request_id: requestId,
        model,
        ...Object.fromEntries(bad.map(([name, value]) => [name, keptValue(value)])),
      },
      reason: `${spec.name}: ${bad.map(([name, value]) => `${name} ${quoteValue(value)}`).join(', ')} is not a whole number of tokens from 0 to ${MAX_TOKENS}`,
    };
  const [input, output, cacheRead, cacheWrite, thinking] = counts.map((c) => ('n' in c ? c.n : 0));
  const fact: UsageFact = {
    kind: 'usage',
    session_id,
    ts: timeOf(timeMs, now),
    request_id: requestId,
    model,
    input_tokens: spec.inputIncludesCacheRead ? Math.max(0, input! - cacheRead!) : input!,
    output_tokens: output!,
    cache_read_tokens: cacheRead!,
    cache_write_tokens: cacheWrite!,
  };
  if (spec.thinking) fact.thinking_tokens = thinking!;
  return fact;
}

/** Maps one request's signals. `now` dates a signal without a usable time. */
export function mapSignals(signals: readonly Signal[], totals: CumulativeTotals, now: number): MapResult {
  const result: MapResult = { facts: new Map(), refused: [], undo: [], unmapped: new Map(), ignored: new Map() };
  // Every fact passes the server's own check here, so the receiver can tell the exporter what it refuses
  // (OTLP's partial success) rather than answer 200 and have the collector quarantine it later.
  const keep = (agent: Agent, fact: OtelFact | Omit<RefusedFact, 'agent'>, name: string) => {
    if (!('kind' in fact)) {
      result.refused.push({ agent, ...fact });
      return;
    }
    const problem = wireProblem(fact, agent);
    if (problem) {
      result.refused.push({ agent, fact: { ...fact }, reason: `${name}: ${problem}` });
      return;
    }
    const list = result.facts.get(agent);
    if (list) list.push(fact);
    else result.facts.set(agent, [fact]);
  };
  for (const signal of signals) {
    if (signal.kind === 'span') {
      // A model call's span (Copilot's `chat`) carries its tokens; every other span is unmapped.
      const spanAgent = otelAgentOf(signal.resource['service.name'], signal.name);
      const operation = signal.attributes['gen_ai.operation.name'] ?? signal.name.split(' ')[0];
      const spec = spanAgent ? OTEL_AGENTS[spanAgent]?.usage.find((u) => u.kind === 'span' && u.name === operation) : undefined;
      if (!spanAgent || !spec) {
        add(result.unmapped, 'span');
        continue;
      }
      const fact = usageFact(spec, signal.attributes, signal.resource, OTEL_AGENTS[spanAgent]!, signal.timeMs, now);
      if (fact) keep(spanAgent, fact, spec.name);
      else add(result.unmapped, `${spec.name} span (without a request id or model)`);
      continue;
    }
    const agentName = otelAgentOf(signal.resource['service.name'], signal.name);
    const agent = agentName ? OTEL_AGENTS[agentName] : undefined;
    if (!agentName || !agent) {
      add(result.unmapped, signal.name || '(unnamed)');
      continue;
    }
    const same = (full: string) => (signal.kind === 'log' ? sameSignal(signal.name, full, agent.prefix) : signal.name === full);
    const decision = agent.decisions.find((d) => d.kind === signal.kind && same(d.name));
    if (decision) {
      const count = signal.kind === 'metric' ? totals.delta(agentName, signal, result.undo) : 1;
      if (count === 0) continue;
      const fact = decisionFact(decision, signal, agent, count, now);
      if (typeof fact === 'string') add(result.ignored, fact);
      else if (!Number.isInteger(count) || count < 0 || count > MAX_DECISIONS)
        keep(
          agentName,
          { fact: { ...fact }, reason: `${decision.name}: ${count} is not a whole number of decisions from 1 to ${MAX_DECISIONS}` },
          decision.name,
        );
      else keep(agentName, fact, decision.name);
      continue;
    }
    const usage = signal.kind === 'log' ? agent.usage.find((u) => u.kind === 'log' && same(u.name)) : undefined;
    if (usage && signal.kind === 'log') {
      const fact = usageFact(usage, signal.attributes, signal.resource, agent, signal.timeMs, now);
      if (fact) keep(agentName, fact, usage.name);
      else add(result.unmapped, `${usage.name} (without a request id or model)`);
      continue;
    }
    const ignored = Object.keys(agent.ignored).find(same);
    if (ignored) add(result.ignored, ignored);
    else add(result.unmapped, signal.name || '(unnamed)');
  }
  return result;
}

/**
 * Pure: the one line an exporter is told of what a request's refused facts were (OTLP's `error_message`),
 * at most MAX_ERROR_MESSAGE characters.
 */
export function refusalMessage(refused: readonly RefusedFact[]): string {
  const reasons = new Map<string, number>();
  for (const r of refused) reasons.set(r.reason, (reasons.get(r.reason) ?? 0) + 1);
  const listed = [...reasons].slice(0, 3).map(([reason, n]) => (n > 1 ? `${reason} (×${n})` : reason));
  const more = reasons.size > 3 ? `; and ${reasons.size - 3} other reasons` : '';
  return boundMessage(`${refused.length} refused: ${listed.join('; ')}${more}`);
}

/**
 * Pure: a fact → its wire record. A decision's id is the sender's (`decisionId`: stable across deliveries of
 * the same request); a usage record's is the agent's request id, so the same call sent twice is one call.
 * Usage says `source: 'otel'`: the daily batch counts it only for a session no file of the agent gave usage for.
 */
export function factRecord(fact: OtelFact, agent: AgentName, decisionId: string): WireRecord {
  if (fact.kind === 'decision') return { ...fact, id: decisionId, agent };
  return {
    kind: 'usage',
    id: `otel:${agent}:${fact.request_id}`,
    agent,
    session_id: fact.session_id,
    ts: fact.ts,
    model: fact.model,
    input_tokens: fact.input_tokens,
    output_tokens: fact.output_tokens,
    cache_read_tokens: fact.cache_read_tokens,
    cache_write_tokens: fact.cache_write_tokens,
    thinking_tokens: fact.thinking_tokens ?? 0,
    thinking: (fact.thinking_tokens ?? 0) > 0,
    source: 'otel',
  };
}
