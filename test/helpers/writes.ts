// What an agent's vocabulary reads from one tool call, in the two forms the tests compare: the files
// (FileTouch, as productivity counts them) and the file edits (lines, as the code figures count them).
import { adapterFor } from '../../collector/agents/index.ts';
import type { FileEdit } from '../../collector/code/edit-lines.ts';
import type { EditRepos } from '../../collector/code/edit-repo.ts';
import { type CallEdits, callEdits } from '../../collector/code/event-edits.ts';
import { fileFacts } from '../../collector/file-facts.ts';
import type { FileTouch } from '../../common/wire.ts';

const writesOf = (agent: string, toolName: string, toolInput: unknown, toolResponse: unknown) =>
  adapterFor(agent)?.tools.writes(toolName, toolInput, toolResponse) ?? [];

/** The files one successful call of `agent` created or edited. */
export const filesOf = (agent: string, toolName: string, toolInput: unknown, toolResponse: unknown): FileTouch[] =>
  writesOf(agent, toolName, toolInput, toolResponse).map((w) => fileFacts(w.edit.path, w.op));

/** The lines one successful call of `agent` added and removed, per file. */
export const editLines = (agent: string, toolName: string, toolInput: unknown, toolResponse: unknown): FileEdit[] =>
  writesOf(agent, toolName, toolInput, toolResponse).map((w) => w.edit);

/** What ships of one successful call of `agent` (callEdits on its vocabulary's reading). */
export const callEditsOf = (
  agent: string,
  toolName: string,
  toolInput: unknown,
  toolResponse: unknown,
  repos?: EditRepos,
  cwd?: string,
): CallEdits => callEdits(editLines(agent, toolName, toolInput, toolResponse), repos, cwd);
