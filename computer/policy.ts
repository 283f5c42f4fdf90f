// The computer's own policy, enforced on the machine whatever the server sends: a session runs only in a
// folder its owner allowed when starting `agentmeter computer run` (`--allow-root`, by default the folder
// it was started in), judged on the real path (after `..` and links), and a session's model is passed
// only when it cannot be read as an option. Pure: the file system is reached through `realpath`.
import { isAbsolute, sep } from 'node:path';

export interface CwdPolicy {
  /** Where a session without a cwd runs; a relative cwd is taken from here. */
  defaultCwd: string;
  /** The allowed roots, as real paths (no links, no `..`). */
  roots: readonly string[];
}

/** The real path of an existing path, undefined when it does not exist (or cannot be resolved). */
export type Realpath = (path: string) => string | undefined;

/** A path as shown in a reason: the reason travels to the server, whose result body caps its length. */
export const shownPath = (path: string) => (path.length > 200 ? `${path.slice(0, 200)}…` : path);

/** Is `path` the root or inside it? Both are real, absolute paths. Pure. */
export function isWithin(path: string, root: string): boolean {
  if (path === root) return true;
  return path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}

/**
 * Where a session with cwd `requested` (null: the default) may run: its real path, or why not. The
 * check is on the real path, so neither `allowed/../..` nor a link out of an allowed root gets past it,
 * and the agent is started in that real path (not in the path as sent).
 */
export function sessionDirectory(requested: string | null, policy: CwdPolicy, realpath: Realpath): { path: string } | { error: string } {
  const asked = requested ?? policy.defaultCwd;
  // Not normalized here: `link/..` is the link target's parent to the kernel, and realpath says so.
  const absolute = isAbsolute(asked) ? asked : `${policy.defaultCwd}${sep}${asked}`;
  const real = realpath(absolute);
  if (real === undefined) return { error: `the session's directory ${shownPath(asked)} does not exist on this computer` };
  if (policy.roots.length === 0)
    return { error: `the session's directory ${shownPath(asked)} is refused: none of the folders this computer allows exists` };
  if (!policy.roots.some((root) => isWithin(real, root))) {
    const resolved = real === asked ? '' : ` (${shownPath(real)})`;
    return {
      error: `the session's directory ${shownPath(asked)}${resolved} is outside the folders this computer allows (${policy.roots.map(shownPath).join(', ')}); its owner can allow more with agentmeter computer run --allow-root DIR`,
    };
  }
  return { path: real };
}

/**
 * Why a session's model is not passed to the agent, or undefined when it may be: it follows the model flag
 * as its value, so one that starts with "-" could be read as an option, and control characters or spaces
 * are no model name. Pure.
 */
export function modelProblem(model: string): string | undefined {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (model.startsWith('-') || /[\s\u0000-\u001f\u007f]/.test(model) || model.length === 0)
    return `the session's model ${JSON.stringify(shownPath(model))} is not a model name this computer passes to the agent`;
  return undefined;
}
