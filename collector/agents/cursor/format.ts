// Cursor's hooks.json lists handlers per event, each its own entry: `{"version": 1, "hooks": {"stop":
// [{"command": "…", "timeout": 30, "matcher": "…", "failClosed": false, "loop_limit": 5}]}}`, where Claude
// Code nests them in matcher groups. The installer, the doctor and the collector work on groups: this reads
// Cursor's entries as one-handler groups and writes groups back as entries. An entry read and written back
// unchanged is written as it was read (its keys in their order), so an uninstall gives the file back as
// the user had it.
import { type HooksFileFormat, isJsonObject } from '../../install/locations.ts';
import type { HooksMap } from '../../install/settings.ts';

/** The entry a handler was read from, kept on it until it is written back. */
const ORIGINAL = 'agentmeter_cursor_entry';

type Json = Record<string, unknown>;

/** Pure: an entry as a handler (Cursor's `type` defaults to "command") and its matcher. */
function handlerOf(entry: Json): { matcher: unknown; handler: Json } {
  const { matcher, ...rest } = entry;
  return { matcher, handler: { type: 'command', ...rest } };
}

function toGroups(events: unknown): unknown {
  if (!isJsonObject(events)) return events;
  const out: Json = {};
  for (const [event, entries] of Object.entries(events)) {
    // Not a list of entries: left as it is, for the groups' schema to refuse (the file is then left untouched).
    if (!Array.isArray(entries) || !entries.every(isJsonObject)) {
      out[event] = entries;
      continue;
    }
    out[event] = entries.map((entry) => {
      const { matcher, handler } = handlerOf(entry);
      return { ...(matcher !== undefined ? { matcher } : {}), hooks: [{ ...handler, [ORIGINAL]: entry }] };
    });
  }
  return out;
}

function fromGroups(hooks: HooksMap): Json {
  const out: Json = {};
  for (const [event, groups] of Object.entries(hooks)) {
    const entries: Json[] = [];
    for (const group of groups) {
      for (const hook of group.hooks) {
        const { [ORIGINAL]: original, ...handler } = hook as Json;
        if (isJsonObject(original)) {
          const before = handlerOf(original);
          if (before.matcher === group.matcher && JSON.stringify(before.handler) === JSON.stringify(handler)) {
            entries.push(original);
            continue;
          }
        }
        entries.push({ ...handler, ...(group.matcher !== undefined && group.matcher !== '' ? { matcher: group.matcher } : {}) });
      }
    }
    out[event] = entries;
  }
  return out;
}

export const CURSOR_HOOKS_FORMAT: HooksFileFormat = { toGroups, fromGroups, newFile: { version: 1 } };
