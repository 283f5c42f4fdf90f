// The receiver's facts in the spool, beside the hook's events: one file per request and agent, written as the
// hook writes (tmp/, then given its name in new/), so the collector ships them at least once, quarantines a
// bad one with its reason, and /today sees them like any event. The header says `source=otel`; the body is
// the mapped facts as JSON (never the OTLP request itself).
//
//   agentmeter-spool=1
//   agent=claude
//   source=otel
//
//   {"facts":[{"kind":"decision",…},{"kind":"usage",…}]}
import { closeSync, constants, fchmodSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { factRecord, type OtelFact } from '../../common/otel/map.ts';
import { PRIVATE_FILE_MODE } from '../../common/private-files.ts';
import { ok, quarantine, type StepResult } from '../../common/result.ts';
import { describeZodError, EditDecision, MAX_DECISIONS, MAX_TOKENS, type WireRecord } from '../../common/wire.ts';
import { adapterFor } from '../agents/index.ts';
import { HOOK_BODY_CAP, type SpoolDirs, type SpoolEntry } from '../spool.ts';

export const OTEL_SOURCE = 'otel';
/** Facts in one spool file: a file stays far below the hook's cap (a fact is ~200 bytes). */
export const FACTS_PER_FILE = 2000;

const text = z.string().min(1).max(256);
const tokens = z.number().int().nonnegative().max(MAX_TOKENS);
const epochMs = z.number().int().min(946_684_800_000).max(4_102_444_800_000);
const SpooledFact = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('decision'),
    session_id: text,
    ts: epochMs,
    decision: EditDecision,
    count: z.number().int().min(1).max(MAX_DECISIONS),
    tool_name: text.optional(),
    language: z.string().min(1).max(128).optional(),
  }),
  z.strictObject({
    kind: z.literal('usage'),
    session_id: text,
    ts: epochMs,
    request_id: text,
    model: text,
    input_tokens: tokens,
    output_tokens: tokens,
    cache_read_tokens: tokens,
    cache_write_tokens: tokens,
    thinking_tokens: tokens.optional(),
  }),
]);
const SpooledBody = z.strictObject({ facts: z.array(SpooledFact).min(1).max(FACTS_PER_FILE) });

let sequence = 0;

/** Most bytes of facts in one file: the spool's body cap, less room for the header's few short lines. */
const FILE_BODY_MAX = HOOK_BODY_CAP - 4096;

/**
 * Pure: the facts from `start` that go in one file: at most FACTS_PER_FILE, and no more than FILE_BODY_MAX
 * bytes (2 000 facts naming long sessions, tools and languages are over a megabyte). Returns its body and
 * where the next file starts.
 */
function nextFile(facts: readonly OtelFact[], start: number): { body: string; end: number } {
  const parts: string[] = [];
  let size = '{"facts":[]}'.length;
  let end = start;
  while (end < facts.length && end - start < FACTS_PER_FILE) {
    const json = JSON.stringify(facts[end]);
    const bytes = Buffer.byteLength(json) + 1;
    if (parts.length && size + bytes > FILE_BODY_MAX) break;
    parts.push(json);
    size += bytes;
    end++;
  }
  return { body: `{"facts":[${parts.join(',')}]}`, end };
}

/**
 * Writes an agent's facts into the spool (several files past FACTS_PER_FILE or the spool's size cap).
 * Private files, created anew (never through a link), given their name in new/ only once whole. Returns
 * the files' names.
 */
export function spoolFacts(dirs: SpoolDirs, agent: string, facts: readonly OtelFact[], now: number, request?: string): string[] {
  const names: string[] = [];
  for (let start = 0, end = 0; start < facts.length; start = end) {
    const next = nextFile(facts, start);
    const body = next.body;
    end = next.end;
    const from = request ? `request=${request}\nfirst=${start}\n` : '';
    const content = Buffer.from(`agentmeter-spool=1\nagent=${agent}\nsource=${OTEL_SOURCE}\n${from}\n${body}`);
    if (content.length > HOOK_BODY_CAP) throw new Error('OTel facts exceed a spool file');
    const name = `otel.${now}.${process.pid}.${++sequence}`;
    const tmp = join(dirs.tmp, name);
    const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, PRIVATE_FILE_MODE);
    try {
      fchmodSync(fd, PRIVATE_FILE_MODE);
      let written = 0;
      while (written < content.length) written += writeSync(fd, content, written, content.length - written);
    } catch (error) {
      closeSync(fd);
      rmSync(tmp, { force: true });
      throw error;
    }
    closeSync(fd);
    renameSync(tmp, join(dirs.new, name));
    names.push(name);
  }
  return names;
}

/** Whether a spool file is the receiver's (its facts) rather than a hook's event. */
export const isOtelEntry = (entry: SpoolEntry) => entry.header['source'] === OTEL_SOURCE;

/** The digest of one OTLP request (signal and body) as the receiver names it in its spool files' `request=`. */
const REQUEST_DIGEST = /^[0-9a-f]{32}$/;

/**
 * One receiver spool file → its wire records, or a quarantine reason. A decision's id is the OTLP request's
 * digest and the fact's place in it (machine, request, agent, position), so an export the agent sends again
 * (its retry after a lost answer, the same bytes) is the same records, not a second count; a file without
 * a digest (an older receiver's) is named by its file and position. Usage is named by the agent's request
 * id (one call, one count).
 */
export function otelWireRecords(entry: SpoolEntry, machineId: string): StepResult<WireRecord[]> {
  const adapter = adapterFor(entry.header['agent']);
  if (!adapter) return quarantine('unknown agent in the spool header (agent=)');
  let json: unknown;
  try {
    json = JSON.parse(entry.body.toString('utf8'));
  } catch {
    return quarantine('OpenTelemetry facts are not JSON');
  }
  const parsed = SpooledBody.safeParse(json);
  if (!parsed.success) return quarantine(`OpenTelemetry facts do not look like the receiver's: ${describeZodError(parsed.error)}`);
  const agent = adapter.name;
  const request = entry.header['request'];
  const first = Number(entry.header['first'] ?? '0');
  if (request !== undefined && (!REQUEST_DIGEST.test(request) || !Number.isSafeInteger(first) || first < 0))
    return quarantine('OpenTelemetry facts with an unreadable request digest (request=, first=)');
  const idOf = (i: number) => (request ? `${machineId}.otel.${request}.${agent}.${first + i}` : `${machineId}.${entry.name}.${i}`);
  return ok(parsed.data.facts.map((fact, i) => factRecord(fact, agent, idOf(i))));
}
