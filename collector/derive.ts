// Pure derivations from a raw hook payload to the facts the metrics need (docs/metrics.md §1-§3). Each is a
// small function tested on fixtures; none reads files or the clock.
import { basename } from 'node:path';
import { splitShellWords } from '../common/shell-words.ts';
import type { AutonomyLevel, ClientType } from '../common/wire.ts';
import { CLIENT_TYPES } from '../common/wire.ts';

/** Client type: AGENTMETER_CLIENT wins; else headless → non-interactive-cli; else terminal-ui. */
export function clientType(explicit: string | undefined, headless: boolean): ClientType {
  const wanted = explicit?.trim();
  if (wanted && (CLIENT_TYPES as readonly string[]).includes(wanted)) return wanted as ClientType;
  return headless ? 'non-interactive-cli' : 'terminal-ui';
}

const CLAUDE_MODES: Record<string, AutonomyLevel> = {
  bypassPermissions: 'auto-high',
  auto: 'auto-medium',
  dontAsk: 'auto-medium',
  acceptEdits: 'auto-low',
  plan: 'spec',
  default: 'manual',
};
const DROID_MODES: Record<string, AutonomyLevel> = {
  'auto-high': 'auto-high',
  'auto-medium': 'auto-medium',
  'auto-low': 'auto-low',
  spec: 'spec',
  off: 'manual',
};

/** Autonomy level from permission_mode; missing or unknown → manual. */
export function autonomyLevel(agent: 'claude' | 'droid' | 'unknown', permissionMode: unknown): AutonomyLevel {
  if (typeof permissionMode !== 'string') return 'manual';
  const table = agent === 'droid' ? DROID_MODES : agent === 'claude' ? CLAUDE_MODES : { ...CLAUDE_MODES, ...DROID_MODES };
  return Object.hasOwn(table, permissionMode) ? table[permissionMode]! : 'manual';
}

/** `mcp__<server>__<tool>` → { server, tool }; anything else → undefined. */
export function mcpParts(toolName: string): { server: string; tool: string } | undefined {
  const match = /^mcp__(.+?)__(.+)$/.exec(toolName.trim());
  return match ? { server: match[1]!, tool: match[2]! } : undefined;
}

/** The skill named by a Skill tool call: tool_input.skill, or .command, or .name. */
export function skillName(toolInput: unknown): string | undefined {
  if (!toolInput || typeof toolInput !== 'object') return undefined;
  const input = toolInput as Record<string, unknown>;
  for (const key of ['skill', 'command', 'name']) {
    const value = input[key];
    if (typeof value === 'string' && value.trim() !== '') return value.trim();
  }
  return undefined;
}

/** A prompt that starts with "/" followed by a name: the name, lower-cased; else undefined. */
export function slashCommand(prompt: unknown): string | undefined {
  if (typeof prompt !== 'string') return undefined;
  const match = /^\/([A-Za-z0-9][A-Za-z0-9_:.-]*)(?:\s|$)/.exec(prompt);
  return match ? match[1]!.toLowerCase() : undefined;
}

/** A tool call succeeded when it was PostToolUse and its response does not say success: false. */
export function toolSucceeded(event: string, toolResponse: unknown): boolean {
  if (event !== 'PostToolUse') return false;
  if (toolResponse && typeof toolResponse === 'object' && (toolResponse as Record<string, unknown>)['success'] === false) return false;
  return true;
}

/**
 * Splits a shell command line into simple commands (on ;, &&, ||, |, &, newlines and subshell
 * parentheses) and each into words, honouring quotes. Enough to recognise `git commit` and
 * `gh pr create`; it never executes or expands anything.
 */
export function shellCommands(line: string): string[][] {
  return splitShellWords(line, { operators: true }).commands;
}

/** Drops leading VAR=value assignments and wrappers (sudo, env, time, command, exec, nohup). */
function commandWords(words: string[]): string[] {
  let i = 0;
  const wrappers = new Set(['sudo', 'env', 'time', 'command', 'exec', 'nohup']);
  while (i < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]!) || wrappers.has(words[i]!))) i++;
  return words.slice(i);
}

/** For `git [-C dir] [-c k=v] [--opt] <sub> args…`: the subcommand and its arguments. */
function gitSubcommand(words: string[]): { sub: string; args: string[] } | undefined {
  const w = commandWords(words);
  if (w.length === 0 || basename(w[0]!) !== 'git') return undefined;
  let i = 1;
  while (i < w.length && w[i]!.startsWith('-')) {
    const opt = w[i]!;
    i += opt === '-C' || opt === '-c' || opt === '--git-dir' || opt === '--work-tree' || opt === '--namespace' ? 2 : 1;
  }
  if (i >= w.length) return undefined;
  return { sub: w[i]!, args: w.slice(i + 1) };
}

/** The command runs `git commit` (not `--dry-run`). */
export function runsGitCommit(command: string): boolean {
  return shellCommands(command).some((words) => {
    const git = gitSubcommand(words);
    return git?.sub === 'commit' && !git.args.includes('--dry-run');
  });
}

/** The command runs `gh pr create`. */
export function runsPrCreate(command: string): boolean {
  return shellCommands(command).some((words) => {
    const w = commandWords(words);
    if (w.length < 3 || basename(w[0]!) !== 'gh') return false;
    const rest: string[] = [];
    for (let i = 1; i < w.length; i++) {
      if (w[i] === '-R' || w[i] === '--repo')
        i++; // these flags take a value
      else if (!w[i]!.startsWith('-')) rest.push(w[i]!);
    }
    return rest[0] === 'pr' && rest[1] === 'create';
  });
}
