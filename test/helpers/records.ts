// Factories for wire records (what the collector ships), for fixtures whose numbers are worked by hand.
import type { WireHookEvent, WireMessage, WireRecord, WireUsage } from '../../common/wire.ts';

let n = 0;
export const at = (iso: string) => Date.parse(iso.length === 10 ? `${iso}T12:00:00Z` : iso);

export function ev(event: string, when: string, extra: Partial<WireHookEvent> = {}): WireHookEvent {
  return {
    kind: 'event',
    id: `ev-${++n}`,
    agent: 'claude',
    event,
    ts: at(when),
    session_id: 's1',
    client: 'terminal-ui',
    autonomy: 'manual',
    ...extra,
  };
}
export const call = (tool: string, when: string, extra: Partial<WireHookEvent> = {}) =>
  ev('PostToolUse', when, {
    tool_name: tool,
    tool_success: true,
    ...(tool.startsWith('mcp__') ? { mcp_server: tool.split('__')[1]! } : {}),
    ...extra,
  });
export const failedCall = (tool: string, when: string, extra: Partial<WireHookEvent> = {}) =>
  ev('PostToolUseFailure', when, { tool_name: tool, tool_success: false, ...extra });
export const turn = (when: string, extra: Partial<WireHookEvent> = {}) => ev('UserPromptSubmit', when, extra);

export function usage(
  model: string,
  when: string,
  tokens: Partial<Pick<WireUsage, 'input_tokens' | 'output_tokens' | 'cache_read_tokens' | 'cache_write_tokens'>>,
  thinking = false,
  session = 's1',
): WireUsage {
  return {
    kind: 'usage',
    id: `u-${++n}`,
    agent: 'claude',
    session_id: session,
    ts: at(when),
    model,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    thinking_tokens: 0,
    thinking,
    ...tokens,
  };
}
export const message = (when: string, session = 's1'): WireMessage => ({
  kind: 'message',
  id: `m-${++n}`,
  agent: 'claude',
  session_id: session,
  ts: at(when),
});

export type { WireRecord };
