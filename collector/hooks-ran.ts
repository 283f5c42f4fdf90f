// Which configured hook commands ran for an event (docs/metrics.md §3 hooks_by_event): the collector reads
// the agent's hook configuration (user and project files) and keeps the commands whose matcher matches.
// Files are re-read only when their modification time changes.
import { statSync } from 'node:fs';
import type { Agent } from '../common/agents.ts';
import { redactCommand } from '../common/redact.ts';
import type { HookRun } from '../common/wire.ts';
import {
  type ConfiguredHook,
  flattenHooks,
  hookSettingsFiles,
  matcherMatches,
  readHooksMap,
  type SettingsLocation,
} from './install/settings.ts';

interface CachedFile {
  mtimeMs: number;
  hooks: ConfiguredHook[];
}

export class HookConfigCache {
  private readonly files = new Map<string, CachedFile>();
  /** Per-batch memo: the files are checked once per batch, not once per event. */
  private readonly batchMemo = new Map<string, ConfiguredHook[]>();
  constructor(private readonly home: string) {}

  beginBatch(): void {
    this.batchMemo.clear();
  }

  private load(location: SettingsLocation): ConfiguredHook[] {
    const { file } = location;
    let mtimeMs: number;
    try {
      mtimeMs = statSync(file).mtimeMs;
    } catch {
      this.files.delete(file);
      return [];
    }
    const cached = this.files.get(file);
    if (cached && cached.mtimeMs === mtimeMs) return cached.hooks;
    const map = readHooksMap(location);
    // Redacted once per read of the file, not once per event: masking costs tens of microseconds a command.
    const hooks = map ? flattenHooks(map).map((h) => ({ ...h, command: redactCommand(h.command, this.home) })) : [];
    this.files.set(file, { mtimeMs, hooks });
    return hooks;
  }

  /** The hooks configured for the agent in this folder, their commands already redacted. */
  configured(agent: Agent, cwd: string | undefined): ConfiguredHook[] {
    const key = `${agent}\0${cwd ?? ''}`;
    let hooks = this.batchMemo.get(key);
    if (!hooks) {
      hooks = hookSettingsFiles(agent, this.home, cwd).flatMap((loc) => this.load(loc));
      this.batchMemo.set(key, hooks);
    }
    return hooks;
  }

  ran(agent: Agent, cwd: string | undefined, event: string, toolName: string | undefined): HookRun[] {
    return this.configured(agent, cwd)
      .filter((h) => h.event === event && matcherMatches(event, h.matcher, toolName, agent))
      .map((h) => ({ event: h.event, matcher: h.matcher, command: h.command }));
  }
}
