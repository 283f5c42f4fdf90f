// The agents agentmeter reads, written once. The wire's AgentName (common/wire.ts), the installer's
// per-agent settings (collector/install/settings.ts) and the collector's adapters (collector/agents/
// index.ts) are typed from this tuple: an agent added here and missing from one of them is a type error.
// The order is the one `hooks`, `doctor` and `uninstall` go through them in.
export const AGENTS = ['claude', 'droid', 'codex', 'gemini', 'qwen', 'cursor', 'copilot'] as const;
export type Agent = (typeof AGENTS)[number];
