// What every agent adapter provides (the same layers for each agent: paths, schema, events, usage).

import type { z } from 'zod';
import type { Agent } from '../../common/agents.ts';
import type { AutonomyLevel, ClientType, WireRecord } from '../../common/wire.ts';
import type { FileWrite } from '../code/edit-lines.ts';
import type { AgentHooks } from '../install/locations.ts';
import type { HookPayload } from './hook-payload.ts';

/** A session seen in a batch, with what its usage reader needs. */
export interface SessionTouch {
  sessionId: string;
  /** Time of the latest event of this session in the batch (usage read now is dated here for Droid). */
  latestTs: number;
  transcriptPaths: Set<string>;
}

export interface UsageReadResult {
  records: WireRecord[];
  /** Lines or files that could not be used, with why (logged; the rest still ships). */
  problems: string[];
}

/**
 * How one agent names its tools: which is its shell, its skill tool, its MCP naming, its file-writing
 * tools. The derived facts (is_shell, skill, mcp_server, files, edit lines, commits, PRs) are the same for every
 * agent; only the vocabulary differs.
 */
export interface ToolVocabulary {
  /** The command line of a call to this agent's shell tool; undefined for any other tool. */
  shellCommand(toolName: string, toolInput: unknown): string | undefined;
  isShell(toolName: string): boolean;
  /** The MCP server and tool of an MCP tool call (the payload too: some agents name the server there). */
  mcp(toolName: string, payload: HookPayload): { server: string; tool: string } | undefined;
  /** The skill a skill-tool call ran; undefined for any other tool. */
  skill(toolName: string, toolInput: unknown): string | undefined;
  /**
   * The files a successful call created or edited, each with the lines it added and removed: one reading
   * gives both the files counted in productivity and the edit lines (builders in code/edit-lines.ts).
   * Tools that write no file give [].
   */
  writes(toolName: string, toolInput: unknown, toolResponse: unknown): FileWrite[];
}

/**
 * An agent's usage reader and the piece of the collector's state it owns (offsets, running totals, ids
 * counted so far). The collector keeps every agent's piece under `agents.<name>` of state.json and commits
 * them together, so no agent's reading progress can be left behind when a batch is acknowledged.
 */
export interface UsageReader<S> {
  /** The piece as saved in state.json; a piece that fails it starts over empty (the rest of the state is kept). */
  readonly state: z.ZodType<S>;
  /** The piece before anything was read. */
  empty(): S;
  /**
   * Reads the usage and assistant messages that appeared since the last reading, advancing `state` in place
   * (a draft the collector saves only after the server acknowledged the records).
   */
  read(session: SessionTouch, state: S, home: string): UsageReadResult;
}

/** Another host that ran this agent's hook (VS Code's Copilot agent, Cursor), and why the event is not this agent's. */
export interface OtherHost {
  host: string;
  reason: string;
  /** The agent the event is recorded as (its adapter reads it); absent: the event is dropped with `reason`. */
  agent?: Agent;
}

export interface AgentAdapter<S = unknown> {
  /** An agent whose hooks the installer knows (a wire AgentName too). */
  readonly name: Agent;
  /**
   * This agent's hook event name as the pipeline counts it: Claude Code's names (PreToolUse,
   * PostToolUse, PostToolUseFailure, UserPromptSubmit, SessionStart, Stop, ...). An agent with other
   * names (Gemini's AfterTool) maps them here, with the payload (a failed tool call is its own event in
   * Claude Code, a field of the response in Gemini); the hooks-ran lookup keeps the agent's own name.
   */
  canonicalEvent(event: string, payload: HookPayload): string;
  readonly tools: ToolVocabulary;
  /**
   * The host that wrote this event when it is not this agent (another program running this agent's hook
   * with its own payload), from the payload (parsed JSON, not yet checked) and the hook's header; such an
   * event is never counted as this agent's. Undefined: the event is this agent's.
   */
  otherHost(header: Record<string, string>, payload: unknown): OtherHost | undefined;
  /**
   * The payload (parsed JSON, not yet checked) in the common hook payload's fields (HookPayload), for an
   * agent whose own dialect differs (Cursor: conversation_id, an event per kind of tool; Copilot CLI's camelCase
   * `sessionId`, `toolName`, `toolArgs`). Pure; absent:
   * the payload is read as it is.
   */
  normalize?(payload: unknown): unknown;
  /**
   * The model an event names, for an agent whose payloads say it and whose files on the machine do not
   * (Cursor): the model its edits are credited to in the ledger. Absent: the models come from its usage.
   */
  eventModel?(payload: HookPayload): string | undefined;
  /** The autonomy level of the event: from permission_mode, or the hook's header where the payload has none. */
  autonomy(permissionMode: unknown, header: Record<string, string>): AutonomyLevel;
  /**
   * The agent ran headless: from the hook's header, or from the payload for agents that record it in their
   * own files (Codex: the rollout named by transcript_path).
   */
  headless(header: Record<string, string>, payload?: HookPayload): boolean;
  /**
   * The event's own identity from the payload (parsed JSON as the hook got it: its session, event, time
   * and tool call), when the agent's host can run our hook twice for one event (from two hook files):
   * the event's id, so the copies are one. Undefined: the spool file names the event.
   */
  eventKey?(json: unknown): string | undefined;
  /** The client the payload shows (VS Code's dialect: `vscode`); undefined: from the header and headless. */
  client?(json: unknown): ClientType | undefined;
  /** Token usage and assistant messages from the agent's own files, with the state that reading keeps. */
  readonly usage: UsageReader<S>;
  /** Where its settings are, which events it emits and how it runs a command hook (the installer's). */
  readonly hooks: AgentHooks;
}

/**
 * An agent's piece of the collector's state (`state.agents`) in its reader's type. Every piece there was
 * made by that reader's `empty()` or read back through its `state` schema (collector/state.ts), so the
 * type is the one the reader gave it.
 */
export const pieceOf = <S>(agents: Readonly<Record<Agent, unknown>>, agent: Agent, _reader: UsageReader<S>): S => agents[agent] as S;
