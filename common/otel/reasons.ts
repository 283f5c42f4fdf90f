// Why an agent's OpenTelemetry signal is left unmapped, in the words its entry (collector/agents/<agent>/otel.ts)
// gives: the reasons several agents share.
export const REPEATS_HOOK = 'repeats a hook event (the hook is the one count)';
export const TOKENS_FROM_FILES = "the same tokens the agent's own files give (docs/metrics.md §1)";
