// Builds one batch: spool files → wire events, plus the usage and assistant messages that appeared in
// the transcripts of the sessions those events belong to (and of the sessions the caller asks to read
// again). Quarantines what cannot be parsed; the rest of the batch still ships. Pure of the network:
// shipping is shipper.ts's job.
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger } from '../common/logger.ts';
import type { WireRecord } from '../common/wire.ts';
import { adapterFor } from './agents/index.ts';
import type { SessionTouch } from './agents/types.ts';
import type { EditRepos } from './code/edit-repo.ts';
import type { CodeTouch, ModelSeen } from './code/tracker.ts';
import { toWireEvent } from './events.ts';
import type { HookConfigCache } from './hooks-ran.ts';
import { isOtelEntry, otelWireRecords } from './otel/spooled.ts';
import { quarantineFile, type SpoolDirs } from './spool.ts';
import { readEntries } from './spool-reader.ts';
import type { CollectorState } from './state.ts';

export interface Batch {
  records: WireRecord[];
  /** records[i] came from spool file sources[i] (one file can hold several, the receiver's); undefined for usage and message records read from transcripts. */
  sources: (string | undefined)[];
  /** The sources whose tmp/ twin (the hook's second link to the file) is removed with them. */
  twins: Set<string>;
  /** The state as it will be once this batch is acknowledged. */
  nextState: CollectorState;
  quarantined: number;
  /** Entries of new/ that are not the hook's files (a link, a folder, another user's file): left alone. */
  leftAlone: string[];
  /**
   * Spool files read and deliberately not shipped (another host's event), with why: removed with the
   * batch once it is acknowledged, and counted by reason.
   */
  dropped: { name: string; reason: string }[];
  /** For the code ledger, once acknowledged (never shipped): sessions' work trees and their edits. */
  touches: CodeTouch[];
  /** Models the batch's usage and messages show, by session and time (the model of an edit). */
  models: ModelSeen[];
  /** The sessions the batch's events belong to, whose transcripts it read. */
  sessions: SessionRead[];
}

/** A session whose agent's files are read: its agent, and what its events said of it. */
export type SessionRead = SessionTouch & { agent: string };

export interface BatchContext {
  dirs: SpoolDirs;
  machineId: string;
  /** The user's home, where agents keep their settings and session files. */
  home: string;
  hooks: HookConfigCache;
  /** The repositories of edited files (their id and .gitattributes exclusions); none: edits carry no repository. */
  editRepos?: EditRepos;
  log: Logger;
  /** Problems already logged (a missing transcript would otherwise be reported on every batch). */
  reported: Set<string>;
}

/**
 * Spool files read between two yields to the event loop: the batch before this one is in flight while
 * this one is built, and its request and answer need the loop.
 */
const SLICE = 250;

/**
 * `readAgain`: sessions whose agent's files are read even with no event of theirs among `names` (an agent
 * can write a turn's last lines after its last hook has run: daemon.ts).
 */
export async function buildBatch(
  ctx: BatchContext,
  names: string[],
  state: CollectorState,
  readAgain: readonly SessionRead[] = [],
): Promise<Batch> {
  const records: WireRecord[] = [];
  const sources: (string | undefined)[] = [];
  const twins = new Set<string>();
  const nextState = structuredClone(state);
  const sessions = new Map<string, SessionRead>();
  let quarantined = 0;
  const leftAlone: string[] = [];
  const dropped: Batch['dropped'] = [];
  const touches: CodeTouch[] = [];
  const models: ModelSeen[] = [];
  const placed = new Set<string>();
  /** Hook events by id: one the payload names twice (two hook files ran our hook for it) counts once. */
  const eventIds = new Set<string>();
  ctx.hooks.beginBatch();

  let i = 0;
  for await (const slice of readEntries(ctx.dirs, names))
    for (const [name, entry] of slice) {
      if (i++ % SLICE === SLICE - 1) await yieldToEventLoop();
      if (entry.kind === 'foreign') {
        leftAlone.push(name);
        const key = `left alone\0${name}`;
        if (!ctx.reported.has(key)) {
          if (ctx.reported.size > 10_000) ctx.reported.clear();
          ctx.reported.add(key);
          ctx.log.warn({ file: name, reason: entry.reason }, 'spool entry is not a file of the hook; left where it is');
        }
        continue;
      }
      if (entry.kind === 'ok' && isOtelEntry(entry.value)) {
        // The OTLP receiver's facts (collector/otel/): several records from one file, no transcript to read.
        const facts = otelWireRecords(entry.value, ctx.machineId);
        if (facts.kind !== 'ok') {
          quarantineFile(ctx.dirs, name, facts.reason);
          ctx.log.warn({ file: name, reason: facts.reason }, 'spool file quarantined');
          quarantined++;
          continue;
        }
        for (const record of facts.value) {
          records.push(record);
          sources.push(name);
        }
        continue;
      }
      const derived = entry.kind === 'ok' ? toWireEvent(entry.value, ctx.machineId, ctx.hooks, ctx.editRepos) : entry;
      if (derived.kind === 'drop') {
        if (entry.kind === 'ok') {
          dropped.push({ name, reason: derived.reason });
          if (entry.value.twin) twins.add(name);
        } else ctx.log.debug({ file: name, reason: derived.reason }, 'spool file skipped');
        continue;
      }
      if (derived.kind !== 'ok') {
        quarantineFile(ctx.dirs, name, derived.reason);
        ctx.log.warn({ file: name, reason: derived.reason }, 'spool file quarantined');
        quarantined++;
        continue;
      }
      const { record, context } = derived.value;
      if (eventIds.has(record.id)) {
        // The server keeps one of an id too; dropping it here also keeps its edits out of the ledger twice.
        dropped.push({ name, reason: 'the same event another hook file already spooled (one event, one count)' });
        if (entry.kind === 'ok' && entry.value.twin) twins.add(name);
        continue;
      }
      eventIds.add(record.id);
      records.push(record);
      sources.push(name);
      if (context.model) models.push({ agent: record.agent, sessionId: context.sessionId, ts: context.ts, model: context.model });
      if (entry.kind === 'ok' && entry.value.twin) twins.add(name);
      const key = `${record.agent}\0${context.sessionId}`;
      const touch = sessions.get(key) ?? {
        agent: record.agent,
        sessionId: context.sessionId,
        latestTs: context.ts,
        transcriptPaths: new Set(),
      };
      touch.latestTs = Math.max(touch.latestTs, context.ts);
      for (const path of context.transcriptPaths) touch.transcriptPaths.add(path);
      sessions.set(key, touch);
      // A session's work tree once per batch (watching starts at its first event), and every edit.
      const where = `${key}\0${context.cwd ?? ''}`;
      if (context.edits || (context.cwd && !placed.has(where))) {
        placed.add(where);
        touches.push({
          agent: record.agent,
          sessionId: context.sessionId,
          ts: context.ts,
          ...(context.cwd ? { cwd: context.cwd } : {}),
          ...(context.edits ? { edits: context.edits } : {}),
        });
      }
    }

  const touched = [...sessions.values()];
  for (const again of readAgain) {
    const key = `${again.agent}\0${again.sessionId}`;
    if (!sessions.has(key)) sessions.set(key, again);
  }
  for (const touch of sessions.values()) {
    const adapter = adapterFor(touch.agent);
    if (!adapter) continue;
    const usage = adapter.usage.read(touch, nextState.agents[adapter.name], ctx.home);
    for (const problem of usage.problems) {
      if (ctx.reported.has(problem)) continue;
      if (ctx.reported.size > 10_000) ctx.reported.clear();
      ctx.reported.add(problem);
      ctx.log.warn({ session: touch.sessionId, problem }, 'usage not fully readable');
    }
    for (const record of usage.records) {
      records.push(record);
      sources.push(undefined);
      if ((record.kind === 'usage' || record.kind === 'message') && record.model)
        models.push({ agent: record.agent, sessionId: record.session_id, ts: record.ts, model: record.model });
    }
  }
  return { records, sources, twins, nextState, quarantined, leftAlone, dropped, touches, models, sessions: touched };
}
