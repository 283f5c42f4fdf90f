// Qwen Code's hook context: autonomy from its approval mode, its one UserPromptSubmit that is not always a
// user turn, and headless runs.
import type { AutonomyLevel } from '../../../common/wire.ts';
import type { HookPayload } from '../hook-payload.ts';

/**
 * Approval modes (packages/core/src/hooks/types.ts `PermissionMode`) as docs/metrics.md §1 maps them; `auto`
 * (newer versions: a classifier approves what it judges safe) is auto-medium, as Claude Code's `auto`.
 */
const QWEN_MODES: Record<string, AutonomyLevel> = {
  yolo: 'auto-high',
  auto: 'auto-medium',
  auto_edit: 'auto-low',
  plan: 'spec',
  default: 'manual',
};

export function qwenAutonomy(permissionMode: unknown): AutonomyLevel {
  return typeof permissionMode === 'string' && Object.hasOwn(QWEN_MODES, permissionMode) ? QWEN_MODES[permissionMode]! : 'manual';
}

/**
 * The name a non-user UserPromptSubmit ships under: Qwen Code fires UserPromptSubmit before every
 * model-bound send, tool-result continuations included, so it counts as an event but not as a user turn.
 */
export const QWEN_MODEL_PROMPT_EVENT = 'ModelPromptSubmit';

/**
 * Qwen Code's events already carry Claude Code's names. UserPromptSubmit is a user turn only when it has
 * `submitted_prompt`, which Qwen sets for text a person submitted and omits for tool-result continuations,
 * retries and machine-driven sends (docs/users/features/hooks.md, UserPromptSubmit: "Consumers that
 * require user-submitted text should treat absence as unavailable").
 */
export function qwenCanonicalEvent(event: string, payload?: HookPayload): string {
  if (event !== 'UserPromptSubmit' || payload === undefined) return event;
  const submitted = (payload as Record<string, unknown>)['submitted_prompt'];
  return typeof submitted === 'string' && submitted.trim() !== '' ? event : QWEN_MODEL_PROMPT_EVENT;
}

/**
 * Headless Qwen Code (`qwen -p`, or a prompt piped to `qwen`) leaves no trace the hook can read without
 * starting a process: no environment variable says so, and the parent's command line (/proc/PID/cmdline)
 * loses its argument boundaries in a shell `read`, so `-p` cannot be told from a prompt that contains it.
 * Headless runs set AGENTMETER_CLIENT=non-interactive-cli, which the hook records and which wins.
 */
export const qwenHeadless = (_header: Record<string, string>): boolean => false;
