// Crediting a landed commit's added lines to the agents that wrote them (docs/metrics.md §5 "Landed"): for
// each file and fingerprint, the smaller of how many times the commit adds it and how many not yet
// credited ledger lines of the same repository, file and fingerprint were written before the committer
// time and at most 30 days before it; those are credited oldest first, each line at most once.

export const CREDIT_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

/** One agent-written line as the ledger keeps it (its key stands for repository, file and fingerprint). */
export interface LedgerLine {
  /** Unique within the ledger; what `credited` remembers. */
  seq: number;
  /** Keyed hash of (repository, file, fingerprint): never the line's text. */
  key: string;
  ts: number;
  agent: string;
  model: string;
  /** The agent session that wrote it ('' for lines kept before sessions were). */
  session: string;
}

/** A commit's added lines: key (as the ledger spells it) → how many times the commit adds it. */
export type CommitAdds = Map<string, number>;

export interface Credit {
  /** Agent lines in all. */
  lines: number;
  /** agent → model → lines. */
  byAgentModel: Map<string, Map<string, number>>;
  /** `agent\0model\0session` → lines: the split by session the cost work divides by. */
  bySource: Map<string, number>;
  /** The ledger lines now credited (seq), to be marked so they never count again. */
  credited: number[];
}

/**
 * Pure: the credit of one commit. `ledger` maps a key to its lines sorted oldest first; `isCredited`
 * says whether a line already went to another commit. Nothing is mutated: the caller records `credited`.
 */
export function creditCommit(
  adds: CommitAdds,
  ledger: ReadonlyMap<string, readonly LedgerLine[]>,
  committerTs: number,
  isCredited: (seq: number) => boolean,
): Credit {
  const credit: Credit = { lines: 0, byAgentModel: new Map(), bySource: new Map(), credited: [] };
  const from = committerTs - CREDIT_WINDOW_MS;
  for (const [key, count] of adds) {
    const lines = ledger.get(key);
    if (!lines) continue;
    let left = count;
    for (const line of lines) {
      if (left === 0 || line.ts >= committerTs) break;
      if (line.ts < from || isCredited(line.seq)) continue;
      left--;
      credit.lines++;
      credit.credited.push(line.seq);
      const models = credit.byAgentModel.get(line.agent) ?? new Map<string, number>();
      models.set(line.model, (models.get(line.model) ?? 0) + 1);
      credit.byAgentModel.set(line.agent, models);
      const source = `${line.agent}\0${line.model}\0${line.session}`;
      credit.bySource.set(source, (credit.bySource.get(source) ?? 0) + 1);
    }
  }
  return credit;
}
