// Free-form JSON objects in request bodies (tag metadata, MCP overrides, extra args): any keys and values,
// but nested at most MAX_FREE_FORM_DEPTH levels. Deeper values are refused as a 400 at validation, since
// every later step that walks them (merging, serializing, DuckDB's JSON) may recurse and overflow the stack.
import { z } from 'zod';

export const MAX_FREE_FORM_DEPTH = 32;

/** Whether a JSON value nests objects and arrays deeper than maxDepth (the value itself is level 1). Iterative. */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > maxDepth) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** A free-form object: any keys and JSON values, nested at most maxDepth levels. */
export function freeForm(maxDepth = MAX_FREE_FORM_DEPTH) {
  return z.record(z.string(), z.unknown()).refine((value) => !nestsDeeperThan(value, maxDepth), {
    message: `nests objects or arrays deeper than ${maxDepth} levels`,
  });
}
