// What the OpenTelemetry receivers (the server's, api/otlp, and the collector's, collector/otel) know of
// each agent's signals: how the receiver knows the agent of a signal, which signals carry edit decisions or
// token usage, and which it leaves on purpose (with the reason). Each agent's names are in its own folder
// (collector/agents/<agent>/otel.ts, as its documentation and source give them; docs/metrics.md §11 lists
// them with the fact each feeds): data that imports only common/, so the server may read it too.
import { type Agent, eachAgent, isObject } from '../agents.ts';
import type { EditDecision } from '../wire.ts';

/** A signal that carries edit decisions: a counter (one data point = `value` decisions) or a log event (one). */
export interface DecisionSignal {
  kind: 'metric' | 'log';
  name: string;
  /** The attribute holding the decision, and what each of its values means (other values are not a decision). */
  decisionAttribute: string;
  decisions: Readonly<Record<string, EditDecision>>;
  /** The tool's name attribute(s), first present wins. */
  toolAttributes: readonly string[];
  /** Only these tools propose edits; absent: every tool the signal names does. */
  editTools?: readonly string[];
  languageAttribute?: string;
}

/**
 * A log event, or a span, that carries one model call's token usage. A span is matched by its
 * `gen_ai.operation.name` (or the first word of its name: "chat gpt-4.1"), so one agent span of a turn,
 * which sums its calls, is never read as one.
 */
export interface UsageSignal {
  kind: 'log' | 'span';
  name: string;
  model: string;
  /** The model's attribute when `model` is absent (the requested model, where the response's is missing). */
  fallbackModel?: string;
  /** The input count holds the cached part (OpenAI's and the GenAI conventions' reading): input = input − cache read. */
  inputIncludesCacheRead?: boolean;
  input: string;
  output: string;
  cacheRead?: string;
  cacheWrite?: string;
  thinking?: string;
  /** The call's id, so a repeated export is one call. */
  requestId: string;
}

export interface OtelAgent {
  /** The resource's `service.name` values the agent exports under. */
  serviceNames: readonly string[];
  /** The prefix of its signal names (an event named without it, `tool_decision`, is matched with it too). */
  prefix: string;
  /** The attributes naming the session, first present wins. */
  sessionAttributes: readonly string[];
  decisions: readonly DecisionSignal[];
  usage: readonly UsageSignal[];
  /** Signals known and not mapped, with why (they repeat a hook event or another mapped signal). */
  ignored: Readonly<Record<string, string>>;
}

const isOtelAgent = (part: unknown): part is OtelAgent | null =>
  part === null ||
  (isObject(part) &&
    Array.isArray(part['serviceNames']) &&
    typeof part['prefix'] === 'string' &&
    Array.isArray(part['decisions']) &&
    Array.isArray(part['usage']));

/** The agents that export OpenTelemetry, each with its names (collector/agents/<agent>/otel.ts). */
export const OTEL_AGENTS: Readonly<Partial<Record<Agent, OtelAgent>>> = Object.fromEntries(
  Object.entries(await eachAgent('otel.ts', (agent) => import(`../../collector/agents/${agent}/otel.ts`), isOtelAgent)).filter(
    ([, names]) => names !== null,
  ),
);

/** Pure: the agent a resource and signal name belong to: by `service.name`, else by the name's prefix. */
export function otelAgentOf(serviceName: unknown, signalName: string): Agent | undefined {
  const entries = Object.entries(OTEL_AGENTS) as [Agent, OtelAgent][];
  if (typeof serviceName === 'string') for (const [agent, m] of entries) if (m.serviceNames.includes(serviceName)) return agent;
  for (const [agent, m] of entries) if (signalName.startsWith(m.prefix)) return agent;
  return undefined;
}

/** Pure: whether an event name (full, or as some agents set `event.name`, without the prefix) is `full`. */
export const sameSignal = (name: string, full: string, prefix: string) => name === full || `${prefix}${name}` === full;
