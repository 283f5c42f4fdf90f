// The collector's side of the code figures (docs/metrics.md §5): after each acknowledged batch, the added
// lines of its edits go into the private ledger, under the model of the session's latest assistant
// message at or before the call, and the work trees its sessions ran in are watched; a scan then finds
// the commits that landed on each watched repository's default branch, credits their lines from the
// ledger, and keeps the commit records until the server acknowledges them. A repository is one per git
// common folder and remote (collector/code/repository.ts): its worktrees, clones and linked paths share
// one ledger and one watch. State lives in $AGENTMETER_HOME/code (state-dir.ts, 0700): repos.json (watched
// repositories), models.json, pending.json, ledger/.
import { isAbsolute, join } from 'node:path';
import { z } from 'zod';
import { AGENTS } from '../../common/agents.ts';
import type { Logger } from '../../common/logger.ts';
import { ensurePrivateDir, writePrivateFile } from '../../common/private-files.ts';
import {
  AgentName,
  MAX_COMMIT_PARENTS,
  MAX_COMMIT_SESSIONS,
  type WireLandedCommit,
  WireLandedCommit as WireLandedCommitSchema,
} from '../../common/wire.ts';
import { type CommitAdds, type Credit, creditCommit } from './credit.ts';
import type { FileEdit } from './edit-lines.ts';
import { absolutePath, FORKING_GIT, type GitRunner, gitOutput } from './git.ts';
import { type CandidateCommit, commitLines, landedCandidates, type RepoFacts, repoFacts } from './landed.ts';
import { Ledger, readPrivate } from './ledger.ts';
import { fingerprint } from './lines.ts';
import { type RepoPlace, Repositories } from './repository.ts';
import { codeStateDir, readableStateDir } from './state-dir.ts';

/** An event of a batch, as far as watching and the ledger need it. */
export interface CodeTouch {
  agent: string;
  sessionId: string;
  ts: number;
  cwd?: string;
  edits?: FileEdit[];
}
/** A model seen in a session at a time (assistant messages and usage records of a batch). */
export interface ModelSeen {
  agent: string;
  sessionId: string;
  ts: number;
  model: string;
}

/** Commits already looked at are remembered this long (by committer time), and older ones not looked at. */
export const LOOKBACK_MS = 60 * 24 * 60 * 60 * 1000;
/** How often a repository's ledger is compacted at most. */
const COMPACT_EVERY_MS = 60 * 60 * 1000;
/** Sessions whose latest model is remembered. */
const MAX_SESSIONS = 5_000;
/**
 * Commits examined again when edits of their repository arrive after them (Codex runs `apply_patch` and
 * `git commit` in one shell call, and its edits reach the ledger after the commit was examined): the most
 * recent ones, committed at most this long ago.
 */
export const RECHECK_COMMITS = 20;
export const RECHECK_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The first walk of a repository's history may take this long (later walks start at the last tip). */
const WALK_TIMEOUT_MS = 120_000;

const Counts = z.record(z.string(), z.number());
const RecentCommit = z.object({
  sha: z.string(),
  ts: z.number(),
  /** The common git folder the commit was found in (its lines are read there again). */
  dir: z.string(),
  /** Ledger keys credited to it and how many times: a new credit takes only what the commit adds beyond. */
  credited: Counts,
  /** Its agent lines by `agent\0model\0session`. */
  sources: Counts,
  record: WireLandedCommitSchema,
});
type RecentCommit = z.infer<typeof RecentCommit>;
const RepoState = z.object({
  /** Watching started: the first event of a session in this repository. */
  since: z.number(),
  /** Commit ids already looked at → committer time. */
  seen: z.record(z.string(), z.number()).default({}),
  compactedAt: z.number().default(0),
  /** Each common git folder of the repository (worktrees share one; each clone has its own) → the tip last walked. */
  dirs: z.record(z.string(), z.object({ tip: z.string().optional() })).default({}),
  recent: z.array(RecentCommit).default([]),
  /** The earliest edit that reached the ledger since the last scan: recent commits after it are examined again. */
  recheckFrom: z.number().optional(),
});
type RepoState = z.infer<typeof RepoState>;
const ReposFile = z.object({
  version: z.literal(2),
  /** Repository key (collector/code/repository.ts) → state. */
  repos: z.record(z.string(), RepoState),
  /** Ledger lines dropped by the size cap, in all. */
  droppedLines: z.number().default(0),
  /** The user's addresses as the server knows them (e-mail and aliases), lower case. */
  addresses: z.array(z.string()).default([]),
});
type ReposFile = z.infer<typeof ReposFile>;
/** Version 1 kept one state per work tree (its root): read once, then moved to the repository's key. */
const ReposFileV1 = z.object({
  version: z.literal(1),
  repos: z.record(z.string(), z.object({ since: z.number(), seen: z.record(z.string(), z.number()).default({}) })),
  droppedLines: z.number().default(0),
});
const ModelsFile = z.record(z.string(), z.object({ ts: z.number(), model: z.string() }));
type ModelsFile = z.infer<typeof ModelsFile>;
/** A landed commit waiting for the server; `credit` is the ledger lines it took, until they are marked. */
const PendingEntry = z.object({
  record: WireLandedCommitSchema,
  credit: z.object({ key: z.string(), gen: z.string(), seqs: z.array(z.number()) }).optional(),
});
type PendingEntry = z.infer<typeof PendingEntry>;
const PendingFile = z.union([
  z.object({ version: z.literal(2), entries: z.array(PendingEntry) }),
  z.array(WireLandedCommitSchema).transform((records) => ({ version: 2 as const, entries: records.map((record) => ({ record })) })),
]);

function loadJson<T>(path: string, schema: z.ZodType<T>, fallback: T): T {
  try {
    const text = readPrivate(path);
    if (text === '') return fallback;
    const parsed = schema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : fallback;
  } catch {
    return fallback;
  }
}

/** Pure: the model of each touch: the latest model seen in its session at or before it, else the one remembered. */
export function modelAt(
  seen: readonly ModelSeen[],
  remembered: ModelsFile,
  touch: { agent: string; sessionId: string; ts: number },
): string {
  let best: { ts: number; model: string } | undefined;
  const key = `${touch.agent}\0${touch.sessionId}`;
  const before = remembered[key];
  if (before && before.ts <= touch.ts) best = before;
  for (const s of seen) {
    if (s.agent !== touch.agent || s.sessionId !== touch.sessionId || s.ts > touch.ts) continue;
    if (!best || s.ts >= best.ts) best = { ts: s.ts, model: s.model };
  }
  return best?.model ?? 'unknown';
}

/** What `collect status` shows, read from the files alone: no logger, nothing written. */
export function readCodeStatus(agentmeterHome: string): { watched: number; pending: number; droppedLines: number } {
  const dir = readableStateDir(agentmeterHome);
  const status = readCodeStatusIn(dir);
  // A collector starting meanwhile may have moved the former folder while it was read: read where it went.
  const now = readableStateDir(agentmeterHome);
  return now === dir ? status : readCodeStatusIn(now);
}

function readCodeStatusIn(dir: string): { watched: number; pending: number; droppedLines: number } {
  const repos = loadJson(join(dir, 'repos.json'), z.union([ReposFile, ReposFileV1]), {
    version: 2,
    repos: {},
    droppedLines: 0,
    addresses: [],
  });
  const pending = loadJson(join(dir, 'pending.json'), PendingFile, { version: 2, entries: [] });
  return { watched: Object.keys(repos.repos).length, pending: pending.entries.length, droppedLines: repos.droppedLines };
}

export interface ScanReport {
  repos: number;
  landed: number;
}

/** Pure: a commit's agent lines by agent and model, and by session, as the wire carries them. */
export function creditRecords(bySource: ReadonlyMap<string, number>): Pick<WireLandedCommit, 'by_agent' | 'by_session'> {
  const byModel = new Map<string, number>();
  const bySession = new Map<string, number>();
  for (const [source, n] of bySource) {
    const [rawAgent = '', rawModel = '', session = ''] = source.split('\0');
    const agent = AgentName.catch('unknown').parse(rawAgent);
    const model = rawModel.slice(0, 256) || 'unknown';
    byModel.set(`${agent}\0${model}`, (byModel.get(`${agent}\0${model}`) ?? 0) + n);
    bySession.set(`${agent}\0${session.slice(0, 256)}`, (bySession.get(`${agent}\0${session.slice(0, 256)}`) ?? 0) + n);
  }
  const split = (map: Map<string, number>) =>
    [...map]
      .map(([k, lines]) => [...k.split('\0'), lines] as [string, string, number])
      .sort((a, b) => b[2] - a[2] || (a[0] + a[1] < b[0] + b[1] ? -1 : 1));
  const agents = split(byModel);
  let sessions = split(bySession);
  if (sessions.length > MAX_COMMIT_SESSIONS) {
    // The smallest sessions past the bound are merged, per agent, under no session: the sum stays exact.
    const keep = sessions.slice(0, MAX_COMMIT_SESSIONS - AGENTS.length - 1);
    const rest = new Map<string, number>();
    for (const [agent, , n] of sessions.slice(keep.length)) rest.set(agent, (rest.get(agent) ?? 0) + n);
    sessions = [...keep, ...[...rest].map(([agent, n]) => [agent, '', n] as [string, string, number])];
  }
  return {
    by_agent: agents.map(([agent, model, lines]) => ({ agent: agent as WireLandedCommit['by_agent'][number]['agent'], model, lines })),
    by_session: sessions.map(([agent, session_id, lines]) => ({
      agent: agent as WireLandedCommit['by_agent'][number]['agent'],
      session_id,
      lines,
    })),
  };
}

export class CodeTracker {
  readonly dir: string;
  readonly ledger: Ledger;
  private repos: ReposFile;
  private models: ModelsFile;
  private pendingEntries: PendingEntry[];
  private readonly places: Repositories;

  constructor(
    agentmeterHome: string,
    private readonly log: Logger,
    places?: Repositories,
    private readonly git: GitRunner = FORKING_GIT,
  ) {
    this.dir = codeStateDir(agentmeterHome, log).dir;
    this.ledger = new Ledger(this.dir);
    this.places = places ?? new Repositories((dir) => git.originUrl(dir));
    this.repos = this.loadRepos();
    this.models = loadJson(join(this.dir, 'models.json'), ModelsFile, {});
    this.pendingEntries = loadJson(join(this.dir, 'pending.json'), PendingFile, { version: 2, entries: [] }).entries;
    // A record written before its credit was marked (the collector stopped between the two): mark it now,
    // and whatever is pending counts as looked at.
    let reapplied = false;
    for (const entry of this.pendingEntries) {
      const state = this.repos.repos[entry.record.repo_id];
      if (state) state.seen[entry.record.commit] = entry.record.ts;
      if (entry.credit) {
        this.ledger.markCredited(entry.credit.key, entry.credit.seqs, entry.credit.gen);
        delete entry.credit;
        reapplied = true;
      }
    }
    if (reapplied) this.save();
  }

  /** The state file, moved from one entry per work tree (version 1) to one per repository when it is old. */
  private loadRepos(): ReposFile {
    const path = join(this.dir, 'repos.json');
    const current = loadJson(path, ReposFile, undefined as ReposFile | undefined);
    if (current) return current;
    const out: ReposFile = { version: 2, repos: {}, droppedLines: 0, addresses: [] };
    const old = loadJson(path, ReposFileV1, undefined as z.infer<typeof ReposFileV1> | undefined);
    if (!old) return out;
    out.droppedLines = old.droppedLines;
    for (const [root, state] of Object.entries(old.repos)) {
      const repository = this.places.repositoryOf(root);
      if (!repository) continue;
      const known = out.repos[repository.key];
      if (known) {
        known.since = Math.min(known.since, state.since);
        Object.assign(known.seen, state.seen);
      } else out.repos[repository.key] = RepoState.parse({ since: state.since, seen: state.seen });
      out.repos[repository.key]!.dirs[repository.commonDir] ??= {};
      this.ledger.adopt(root, repository.key);
    }
    return out;
  }

  private saveRepos(): void {
    ensurePrivateDir(this.dir);
    writePrivateFile(join(this.dir, 'repos.json'), JSON.stringify(this.repos));
  }

  private savePending(): void {
    ensurePrivateDir(this.dir);
    writePrivateFile(join(this.dir, 'pending.json'), JSON.stringify({ version: 2, entries: this.pendingEntries }));
  }

  private save(): void {
    this.saveRepos();
    ensurePrivateDir(this.dir);
    writePrivateFile(join(this.dir, 'models.json'), JSON.stringify(this.models));
    this.savePending();
  }

  /** The watched repositories (their keys: `repo_<id>`, or `dir:<common git folder>` without an origin). */
  get watched(): string[] {
    return Object.keys(this.repos.repos);
  }

  get droppedLines(): number {
    return this.repos.droppedLines;
  }

  /** Whether edits reached the ledger after commits that may take them: a scan should look again. */
  get recheckDue(): boolean {
    return Object.values(this.repos.repos).some((r) => r.recheckFrom !== undefined && r.recent.length > 0);
  }

  /**
   * The user's addresses as the server knows them (e-mail and aliases): commits of these authors land.
   * A changed list walks every history again (a commit passed over before may be the user's now).
   */
  setAddresses(addresses: readonly string[]): void {
    const list = [...new Set(addresses.map((a) => a.trim().toLowerCase()).filter(Boolean))].sort();
    if (list.join('\n') === this.repos.addresses.join('\n')) return;
    this.repos.addresses = list;
    for (const state of Object.values(this.repos.repos)) for (const dir of Object.values(state.dirs)) delete dir.tip;
    this.saveRepos();
  }

  private watch(key: string, commonDir: string, ts: number): void {
    const known = this.repos.repos[key];
    if (known) {
      if (ts < known.since) known.since = ts;
      known.dirs[commonDir] ??= {};
      return;
    }
    this.repos.repos[key] = RepoState.parse({ since: ts, dirs: { [commonDir]: {} } });
    this.log.info({ repository: key, since: new Date(ts).toISOString() }, 'watching a repository for landed commits');
  }

  /** Takes an acknowledged batch: watched repositories, the ledger's new lines, the sessions' latest models. */
  record(touches: readonly CodeTouch[], seen: readonly ModelSeen[]): number {
    const writes = new Map<string, Parameters<Ledger['append']>[1]>();
    // A batch names the same few folders and files thousands of times: each is resolved once per batch
    // (a link changed between two batches is still seen).
    const placed = new Map<string, RepoPlace | undefined>();
    const placeOf = (path: string): RepoPlace | undefined => {
      if (placed.has(path)) return placed.get(path);
      const place = this.places.place(path);
      placed.set(path, place);
      return place;
    };
    for (const touch of touches) {
      if (touch.cwd && isAbsolute(touch.cwd)) {
        const place = placeOf(touch.cwd);
        if (place) this.watch(place.key, place.commonDir, touch.ts);
      }
      if (!touch.edits?.length) continue;
      const model = modelAt(seen, this.models, touch);
      for (const edit of touch.edits) {
        const path = absolutePath(edit.path, touch.cwd);
        if (!path) continue;
        const place = placeOf(path);
        if (!place) continue;
        this.watch(place.key, place.commonDir, touch.ts);
        if (!edit.added.length || place.relPath === '') continue;
        const list = writes.get(place.key) ?? [];
        list.push({
          relPath: place.relPath,
          fingerprints: edit.added.map(fingerprint),
          ts: touch.ts,
          agent: touch.agent,
          model,
          session: touch.sessionId,
        });
        writes.set(place.key, list);
      }
    }
    let written = 0;
    for (const [key, list] of writes) {
      written += this.ledger.append(key, list);
      const state = this.repos.repos[key]!;
      const earliest = Math.min(...list.map((w) => w.ts));
      state.recheckFrom = Math.min(state.recheckFrom ?? earliest, earliest);
    }
    for (const s of seen) {
      const key = `${s.agent}\0${s.sessionId}`;
      const before = this.models[key];
      if (!before || s.ts >= before.ts) this.models[key] = { ts: s.ts, model: s.model };
    }
    const keys = Object.keys(this.models);
    if (keys.length > MAX_SESSIONS) {
      keys.sort((a, b) => this.models[a]!.ts - this.models[b]!.ts);
      for (const key of keys.slice(0, keys.length - MAX_SESSIONS)) delete this.models[key];
    }
    this.save();
    return written;
  }

  /** Looks for newly landed commits in every watched repository; their records wait in pending(). */
  async scan(now = Date.now()): Promise<ScanReport> {
    if (this.watched.length === 0) return { repos: 0, landed: 0 };
    let landed = 0;
    for (const key of this.watched) {
      try {
        landed += await this.scanRepo(key, now);
      } catch (error) {
        this.log.warn({ repository: key, error: (error as Error).message }, 'landed commits: repository not read');
      }
    }
    this.save();
    return { repos: this.watched.length, landed };
  }

  /** The commits of one common git folder that may land: walked from the tip last walked, none cut off by time. */
  private async candidatesOf(
    key: string,
    dir: string,
    state: RepoState,
    since: number,
  ): Promise<{ facts: RepoFacts; tip: string | undefined; commits: CandidateCommit[] } | undefined> {
    const facts = await repoFacts(dir, this.git);
    // Commits ship under the origin's id: a folder whose origin is now another repository's is left out.
    if (!facts.ref || !facts.repo || !facts.repoId || (!key.startsWith('dir:') && facts.repoId !== key)) return undefined;
    const addresses = new Set(this.repos.addresses);
    if (facts.email) addresses.add(facts.email.toLowerCase());
    if (addresses.size === 0) return undefined;
    const tip = (await gitOutput(dir, ['rev-parse', '--verify', '--quiet', `${facts.ref}^{commit}`], this.git))?.[0];
    const last = state.dirs[dir]?.tip;
    const from = last && (await gitOutput(dir, ['rev-parse', '--verify', '--quiet', `${last}^{commit}`], this.git))?.[0] ? last : undefined;
    const commits = await landedCandidates(dir, facts.ref, addresses, since, from, WALK_TIMEOUT_MS, this.git);
    return { facts, tip, commits: commits.filter((c) => state.seen[c.sha] === undefined) };
  }

  private async scanRepo(key: string, now: number): Promise<number> {
    const state = this.repos.repos[key]!;
    if (now - state.compactedAt > COMPACT_EVERY_MS) {
      const compacted = this.ledger.compact(key, now);
      state.compactedAt = now;
      if (compacted.capped) {
        this.repos.droppedLines += compacted.capped;
        this.log.warn(
          { repository: key, dropped: compacted.capped, total: this.repos.droppedLines },
          'ledger over its cap: oldest lines dropped',
        );
      }
    }
    const since = Math.max(state.since, now - LOOKBACK_MS);
    for (const [sha, ts] of Object.entries(state.seen)) if (ts < now - LOOKBACK_MS) delete state.seen[sha];
    state.recent = state.recent.filter((r) => r.ts >= now - RECHECK_WINDOW_MS);
    let landed = 0;
    if (state.recheckFrom !== undefined) {
      const from = state.recheckFrom;
      delete state.recheckFrom;
      for (const entry of state.recent) if (entry.ts > from) await this.recheck(key, entry);
    }
    const found = new Map<string, { dir: string; facts: RepoFacts; commit: CandidateCommit }>();
    const tips: [string, string | undefined][] = [];
    for (const dir of Object.keys(state.dirs)) {
      const walked = await this.candidatesOf(key, dir, state, since);
      if (!walked) continue;
      tips.push([dir, walked.tip]);
      for (const commit of walked.commits) if (!found.has(commit.sha)) found.set(commit.sha, { dir, facts: walked.facts, commit });
    }
    // Oldest first: an older commit takes the ledger lines it can before a newer one adding the same lines.
    const candidates = [...found.values()].sort((a, b) => a.commit.ts - b.commit.ts);
    for (const { dir, facts, commit } of candidates) {
      const lines = await commitLines(dir, commit, undefined, this.git);
      if (lines.unmatched)
        this.log.warn(
          { repository: key, commit: commit.sha, unmatched: lines.unmatched },
          'huge commit: lines past the cap counted, not matched',
        );
      const adds = this.addsOf(lines.adds);
      const credit = this.creditOf(key, adds, commit.ts);
      const record: WireLandedCommit = {
        kind: 'commit',
        id: `${facts.repoId}:${commit.sha}`,
        repo_id: facts.repoId!,
        repo: facts.repo!.slice(0, 512),
        commit: commit.sha,
        ts: commit.ts,
        author: commit.author,
        parents: commit.parents.slice(0, MAX_COMMIT_PARENTS),
        lines_added: lines.linesAdded,
        lines_deleted: lines.linesDeleted,
        agent_lines: credit.lines,
        ...creditRecords(credit.bySource),
      };
      this.land(key, state, record, credit, {
        sha: commit.sha,
        ts: commit.ts,
        dir,
        credited: creditedCounts(credit.keys),
        sources: Object.fromEntries(credit.bySource),
        record,
      });
      landed++;
      this.log.info({ repository: facts.repo, commit: commit.sha, lines: lines.linesAdded, agentLines: credit.lines }, 'commit landed');
    }
    // Every commit the walks found was examined: the next walks start at these tips.
    for (const [dir, tip] of tips) if (tip) state.dirs[dir] = { tip };
    return landed;
  }

  /** A commit's added lines as ledger keys and how many times it adds each. */
  private addsOf(lines: Map<string, string[]>): CommitAdds {
    const adds: CommitAdds = new Map();
    for (const [relPath, fps] of lines)
      for (const fp of fps) {
        const key = this.ledger.lineKey(relPath, fp);
        adds.set(key, (adds.get(key) ?? 0) + 1);
      }
    return adds;
  }

  private creditOf(key: string, adds: CommitAdds, ts: number): Credit & { gen: string; keys: string[] } {
    const gen = this.ledger.generation(key);
    const { index, credited } = this.ledger.lookup(key, new Set(adds.keys()));
    const credit = creditCommit(adds, index, ts, (seq) => credited.has(seq));
    const bySeq = new Map<number, string>();
    for (const [k, list] of index) for (const line of list) bySeq.set(line.seq, k);
    return { ...credit, gen, keys: credit.credited.map((seq) => bySeq.get(seq)!) };
  }

  /**
   * One durable step per commit: the record (with the ledger lines it took) is written to pending.json
   * first, then the lines are marked credited. A collector stopped between the two marks them at its
   * next start (the constructor); stopped before, it examines the commit again with nothing taken.
   */
  private land(key: string, state: RepoState, record: WireLandedCommit, credit: Credit & { gen: string }, recent: RecentCommit): void {
    const entry: PendingEntry = { record, ...(credit.credited.length ? { credit: { key, gen: credit.gen, seqs: credit.credited } } : {}) };
    const at = this.pendingEntries.findIndex((e) => e.record.id === record.id);
    if (at >= 0) this.pendingEntries[at] = entry;
    else this.pendingEntries.push(entry);
    state.seen[record.commit] = record.ts;
    this.savePending();
    if (entry.credit) this.ledger.markCredited(key, entry.credit.seqs, entry.credit.gen);
    delete entry.credit;
    state.recent = [...state.recent.filter((r) => r.sha !== recent.sha), recent].sort((a, b) => b.ts - a.ts).slice(0, RECHECK_COMMITS);
    this.saveRepos();
  }

  /** Examines a recent commit again with the ledger's new lines; a commit that gains agent lines is sent again. */
  private async recheck(key: string, entry: RecentCommit): Promise<void> {
    const parents = (await gitOutput(entry.dir, ['rev-list', '--parents', '-n', '1', entry.sha], this.git))?.[0]?.split(' ').slice(1);
    if (!parents) return;
    const lines = await commitLines(entry.dir, { sha: entry.sha, ts: entry.ts, parents, author: entry.record.author }, undefined, this.git);
    const adds = this.addsOf(lines.adds);
    for (const [k, n] of Object.entries(entry.credited)) {
      const left = (adds.get(k) ?? 0) - n;
      if (left > 0) adds.set(k, left);
      else adds.delete(k);
    }
    if (adds.size === 0) return;
    const credit = this.creditOf(key, adds, entry.ts);
    if (credit.lines === 0) return;
    // The earlier split, by agent, model and session, plus the new lines.
    const sources = new Map(Object.entries(entry.sources));
    for (const [source, n] of credit.bySource) sources.set(source, (sources.get(source) ?? 0) + n);
    const record: WireLandedCommit = {
      ...entry.record,
      agent_lines: entry.record.agent_lines + credit.lines,
      ...creditRecords(sources),
    };
    const credited = { ...entry.credited };
    for (const k of credit.keys) credited[k] = (credited[k] ?? 0) + 1;
    this.land(key, this.repos.repos[key]!, record, credit, { ...entry, credited, sources: Object.fromEntries(sources), record });
    this.log.info(
      { repository: record.repo, commit: entry.sha, agentLines: record.agent_lines },
      'landed commit examined again: agent lines found',
    );
  }

  /** Landed-commit records not yet acknowledged by the server. */
  pending(): WireLandedCommit[] {
    return this.pendingEntries.map((e) => e.record);
  }

  /** The server has these records (stored, repeated or rejected): they are not sent again. */
  acknowledge(ids: Iterable<string>): void {
    const done = new Set(ids);
    this.pendingEntries = this.pendingEntries.filter((e) => !done.has(e.record.id));
    this.save();
  }

  /** The git folders whose refs say when the default branch moves (fetch, push): what the running collector watches. */
  async refsToWatch(): Promise<string[]> {
    const out: string[] = [];
    for (const state of Object.values(this.repos.repos))
      for (const dir of Object.keys(state.dirs)) out.push(join(dir, 'refs', 'remotes'), join(dir, 'packed-refs'));
    return out;
  }
}

/** Pure: ledger keys credited → how many times. */
function creditedCounts(keys: readonly string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of keys) out[k] = (out[k] ?? 0) + 1;
  return out;
}
