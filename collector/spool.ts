// The local spool written by hooks/agentmeter-hook.sh: tmp/ (being written), new/ (complete events),
// bad/ (quarantined, each with a .reason file beside it).
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ok, quarantine, type StepResult } from '../common/result.ts';

/** Bodies longer than this were cut by the hook (it keeps at most this many bytes + 1). */
export const HOOK_BODY_CAP = 1024 * 1024;
/** tmp/ files older than this belong to a hook that died mid-write. */
export const TMP_MAX_AGE_MS = 36 * 3600 * 1000;

export interface SpoolDirs {
  root: string;
  tmp: string;
  new: string;
  bad: string;
}

export function spoolDirs(agentmeterHome: string): SpoolDirs {
  const root = join(agentmeterHome, 'spool');
  return { root, tmp: join(root, 'tmp'), new: join(root, 'new'), bad: join(root, 'bad') };
}

export function ensureSpool(dirs: SpoolDirs): void {
  for (const dir of [dirs.tmp, dirs.new, dirs.bad]) mkdirSync(dir, { recursive: true });
}

/** A spool file as the hook wrote it: header fields and the raw body. */
export interface SpoolEntry {
  name: string;
  header: Record<string, string>;
  body: Buffer;
  /** Modification time in ms: the event time unless the header's time= overrides it. */
  mtimeMs: number;
  truncated: boolean;
}

/** Parses "key=value" header lines up to the first blank line. Pure. */
export function parseSpoolFile(name: string, content: Buffer, mtimeMs: number): StepResult<SpoolEntry> {
  const end = content.indexOf('\n\n');
  if (end < 0) return quarantine('no header: the file does not come from the agentmeter hook');
  const headerText = content.subarray(0, end).toString('utf8');
  const header: Record<string, string> = {};
  for (const line of headerText.split('\n')) {
    const eq = line.indexOf('=');
    if (eq <= 0) return quarantine(`malformed header line: ${JSON.stringify(line.slice(0, 80))}`);
    header[line.slice(0, eq)] = line.slice(eq + 1);
  }
  if (header['agentmeter-spool'] !== '1') return quarantine(`unknown spool format ${JSON.stringify(header['agentmeter-spool'] ?? '')}`);
  const body = content.subarray(end + 2);
  return ok({ name, header, body, mtimeMs, truncated: body.length > HOOK_BODY_CAP });
}

export function listNew(dirs: SpoolDirs, limit = Infinity): string[] {
  let names: string[];
  try {
    names = readdirSync(dirs.new);
  } catch {
    return [];
  }
  names.sort();
  return names.length > limit ? names.slice(0, limit) : names;
}

export function readEntry(dirs: SpoolDirs, name: string): StepResult<SpoolEntry> {
  const path = join(dirs.new, name);
  try {
    const stat = statSync(path);
    return parseSpoolFile(name, readFileSync(path), stat.mtimeMs);
  } catch (error) {
    return quarantine(`unreadable: ${(error as Error).message}`);
  }
}

/** Moves a spool file to bad/ with its reason beside it. */
export function quarantineFile(dirs: SpoolDirs, name: string, reason: string): void {
  mkdirSync(dirs.bad, { recursive: true });
  writeFileSync(join(dirs.bad, `${name}.reason`), `${reason}\n`);
  try {
    renameSync(join(dirs.new, name), join(dirs.bad, name));
  } catch {
    // Already moved by an earlier attempt: the reason file above still records why.
  }
}

/** Writes a record that the server refused (not a spool file) to bad/ so it is not lost. */
export function quarantineRecord(dirs: SpoolDirs, id: string, record: unknown, reason: string): void {
  mkdirSync(dirs.bad, { recursive: true });
  const name = `record.${id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 120)}.json`;
  writeFileSync(join(dirs.bad, name), `${JSON.stringify(record)}\n`);
  writeFileSync(join(dirs.bad, `${name}.reason`), `${reason}\n`);
}

export function removeShipped(dirs: SpoolDirs, names: Iterable<string>): void {
  for (const name of names) rmSync(join(dirs.new, name), { force: true });
}

/** Deletes tmp/ files older than maxAgeMs (hooks that died mid-write); returns how many. */
export function sweepTmp(dirs: SpoolDirs, now = Date.now(), maxAgeMs = TMP_MAX_AGE_MS): number {
  let swept = 0;
  let names: string[] = [];
  try {
    names = readdirSync(dirs.tmp);
  } catch {
    return 0;
  }
  for (const name of names) {
    const path = join(dirs.tmp, name);
    try {
      if (now - statSync(path).mtimeMs > maxAgeMs) {
        rmSync(path, { force: true });
        swept++;
      }
    } catch {
      // Renamed into new/ while we looked: not ours to sweep.
    }
  }
  return swept;
}

export function spoolCounts(dirs: SpoolDirs): { pending: number; quarantined: number; inProgress: number } {
  const count = (dir: string, filter: (n: string) => boolean = () => true) => {
    try {
      return readdirSync(dir).filter(filter).length;
    } catch {
      return 0;
    }
  };
  return {
    pending: count(dirs.new),
    quarantined: count(dirs.bad, (n) => !n.endsWith('.reason')),
    inProgress: count(dirs.tmp),
  };
}
