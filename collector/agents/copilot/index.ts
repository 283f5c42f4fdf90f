// GitHub Copilot: its CLI and VS Code's Copilot agent, one agent (`copilot`), VS Code's events with the
// client `vscode` whichever hook file ran the hook (~/.copilot/hooks or Claude Code's settings,
// collector/agents/claude/hosts.ts). Tokens come from its OpenTelemetry, not from files.
import { noOtherHost } from '../hosts.ts';
import type { AgentAdapter } from '../types.ts';
import { copilotAutonomy, copilotClient, copilotEvent, copilotEventKey, copilotHeadless } from './events.ts';
import { COPILOT_HOOKS } from './hooks.ts';
import { copilotPayload } from './schema.ts';
import { COPILOT_TOOLS } from './tools.ts';
import { COPILOT_USAGE, type CopilotState } from './usage.ts';

export const copilotAdapter: AgentAdapter<CopilotState> = {
  name: 'copilot',
  canonicalEvent: copilotEvent,
  tools: COPILOT_TOOLS,
  otherHost: noOtherHost,
  normalize: copilotPayload,
  eventKey: copilotEventKey,
  client: copilotClient,
  autonomy: copilotAutonomy,
  headless: copilotHeadless,
  usage: COPILOT_USAGE,
  hooks: COPILOT_HOOKS,
};

export default copilotAdapter;
