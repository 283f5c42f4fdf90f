// Copilot CLI's hook files list the commands themselves under each event, with no matcher groups around
// them: `{"version": 1, "hooks": {"sessionStart": [{"type": "command", "bash": "…", "timeoutSec": 30}]}}`.
// The installer, the doctor and the collector work on Claude Code's matcher groups: this reads each entry
// as a group of one hook and writes groups back as entries, keeping every key of an entry it does not know.
import { type HooksFileFormat, isJsonObject } from '../../install/locations.ts';
import type { HooksMap } from '../../install/settings.ts';

/** The key names of a flat hook entry, and the file's format version. */
export interface FlatHookEntries {
  command: string;
  timeout: string;
  version: number;
}

/**
 * Pure: a flat hooks object (each event's entries are the commands: Copilot CLI's hook files) as the
 * grouped map, each entry one group of one hook in the map's names (`command`, `timeout`); every other key
 * of the entry is kept. Anything that is not an array of objects stays as it is, for the map's check.
 */
export function groupedFromFlat(raw: unknown, flat: FlatHookEntries): unknown {
  if (!isJsonObject(raw)) return raw;
  return Object.fromEntries(
    Object.entries(raw).map(([event, entries]) => {
      if (!Array.isArray(entries) || !entries.every(isJsonObject)) return [event, entries];
      return [
        event,
        entries.map((entry) => {
          const { [flat.command]: command, [flat.timeout]: timeout, matcher, ...rest } = entry;
          const hook = { ...rest, ...(command !== undefined ? { command } : {}), ...(timeout !== undefined ? { timeout } : {}) };
          return { ...(typeof matcher === 'string' ? { matcher } : {}), hooks: [hook] };
        }),
      ];
    }),
  );
}

/** Pure: the grouped map as a flat hooks object (groupedFromFlat's inverse; a "*" matcher, all tools, is left out). */
export function flatFromGrouped(hooks: HooksMap, flat: FlatHookEntries): Record<string, unknown[]> {
  return Object.fromEntries(
    Object.entries(hooks).map(([event, groups]) => [
      event,
      groups.flatMap((group) =>
        group.hooks.map((hook) => {
          const { command, timeout, async: _async, ...rest } = hook;
          return {
            ...rest,
            ...(command !== undefined ? { [flat.command]: command } : {}),
            ...(timeout !== undefined ? { [flat.timeout]: timeout } : {}),
            ...(group.matcher && group.matcher !== '*' ? { matcher: group.matcher } : {}),
          };
        }),
      ),
    ]),
  );
}

/** A flat hooks file as the installer reads and writes it (a file it creates starts with the version). */
export const flatHooksFormat = (flat: FlatHookEntries): HooksFileFormat => ({
  toGroups: (events) => groupedFromFlat(events, flat),
  fromGroups: (hooks) => flatFromGrouped(hooks, flat),
  newFile: { version: flat.version },
});
