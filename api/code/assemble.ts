// Pure: the records of GET /api/v1/analytics/code (docs/metrics.md §5) from the aggregate rows: one record per
// day of the range (zeros included), or with group_by the flat rows of each non-zero group. Breakdown
// arrays: by count descending, then name (docs/metrics.md §4).
import { sumBreakdowns } from '../analytics/totals.ts';
import type { CodeGroupedRow, CodeRecord, CodeTotals } from './schema.ts';
import type { EditRow, LandedAgentRow, LandedRow } from './store.ts';

type Split = { lines_added: number; lines_deleted: number };

function sumBy<T>(rows: T[], key: (r: T) => string, value: (r: T) => Split): [string, Split][] {
  const totals = new Map<string, Split>();
  for (const r of rows) {
    const k = key(r);
    const v = value(r);
    const t = totals.get(k) ?? { lines_added: 0, lines_deleted: 0 };
    t.lines_added += v.lines_added;
    t.lines_deleted += v.lines_deleted;
    totals.set(k, t);
  }
  return [...totals].sort(
    (a, b) => b[1].lines_added - a[1].lines_added || b[1].lines_deleted - a[1].lines_deleted || (a[0] < b[0] ? -1 : 1),
  );
}

function countBy<T>(rows: T[], key: (r: T) => string, value: (r: T) => number): [string, number][] {
  const totals = new Map<string, number>();
  for (const r of rows) totals.set(key(r), (totals.get(key(r)) ?? 0) + value(r));
  return [...totals].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

function byDay<T extends { day: string }>(rows: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const r of rows) out.set(r.day, [...(out.get(r.day) ?? []), r]);
  return out;
}

/** agent_lines_added / lines_added, rounded to 4 decimals; 0 when no lines. */
export const agentShare = (agentLines: number, lines: number): number =>
  lines > 0 ? Math.round((agentLines / lines) * 10_000) / 10_000 : 0;

/** `cost`: each day's landed cost (CodeStore.landedCost); a day it does not name cost nothing. */
export function codeRecords(
  days: string[],
  edits: EditRow[],
  landed: LandedRow[],
  agents: LandedAgentRow[],
  cost: ReadonlyMap<string, number | null> = new Map(),
): CodeRecord[] {
  const editDays = byDay(edits);
  const landedDays = byDay(landed);
  const agentDays = byDay(agents);
  return days.map((date) => {
    const e = editDays.get(date) ?? [];
    const l = landedDays.get(date) ?? [];
    const a = agentDays.get(date) ?? [];
    const linesAdded = l.reduce((n, r) => n + r.lines_added, 0);
    const agentLines = l.reduce((n, r) => n + r.agent_lines, 0);
    return {
      date,
      edits: {
        lines_added: e.reduce((n, r) => n + r.lines_added, 0),
        lines_deleted: e.reduce((n, r) => n + r.lines_deleted, 0),
        by_agent: sumBy(
          e,
          (r) => r.agent,
          (r) => r,
        ).map(([agent, s]) => ({ agent: agent as CodeRecord['landed']['by_agent'][number]['agent'], ...s })),
        by_model: sumBy(
          e,
          (r) => r.model,
          (r) => r,
        ).map(([model_id, s]) => ({ model_id, ...s })),
        // A file whose extension names no known language counts under `other` (docs/metrics.md §5).
        by_language: sumBy(
          e,
          (r) => r.language || 'other',
          (r) => r,
        ).map(([language, s]) => ({ language, ...s })),
      },
      landed: {
        commits: l.reduce((n, r) => n + r.commits, 0),
        commits_with_agent_lines: l.reduce((n, r) => n + r.commits_with_agent_lines, 0),
        lines_added: linesAdded,
        lines_deleted: l.reduce((n, r) => n + r.lines_deleted, 0),
        agent_lines_added: agentLines,
        agent_share: agentShare(agentLines, linesAdded),
        cost_usd: cost.has(date) ? cost.get(date)! : 0,
        by_agent: countBy(
          a,
          (r) => r.agent,
          (r) => r.lines,
        ).map(([agent, lines]) => ({
          agent: agent as CodeRecord['landed']['by_agent'][number]['agent'],
          lines,
        })),
        by_model: countBy(
          a,
          (r) => r.model,
          (r) => r.lines,
        ).map(([model_id, lines]) => ({ model_id, lines })),
      },
    };
  });
}

/** The range in one: sums of the day records, and the two ratios computed once, here. */
export function codeTotals(records: readonly CodeRecord[]): CodeTotals {
  const sum = (f: (r: CodeRecord) => number) => records.reduce((n, r) => n + f(r), 0);
  const edits = sum((r) => r.edits.lines_added);
  const landed = sum((r) => r.landed.lines_added);
  const agent = sum((r) => r.landed.agent_lines_added);
  return {
    edit_lines_added: edits,
    landed_lines_added: landed,
    agent_lines_added: agent,
    commits: sum((r) => r.landed.commits),
    commits_with_agent_lines: sum((r) => r.landed.commits_with_agent_lines),
    agent_share: agentShare(agent, landed),
    landed_rate: agentShare(agent, edits),
  };
}

/** group_by=agent|model|repo: one row per day and non-zero group, ordered by date then group_key. */
export function codeGrouped(
  groupBy: 'agent' | 'model' | 'repo',
  edits: EditRow[],
  landed: LandedRow[],
  agents: LandedAgentRow[],
): CodeGroupedRow[] {
  const rows = new Map<string, CodeGroupedRow>();
  const row = (date: string, group_key: string) => {
    const k = `${date}\0${group_key}`;
    let r = rows.get(k);
    if (!r) {
      r = { date, group_key, edit_lines_added: 0, landed_lines_added: 0, landed_agent_lines: 0 };
      rows.set(k, r);
    }
    return r;
  };
  if (groupBy === 'repo') {
    // Edits outside any repository ('') belong to no row; landed commits always have one.
    for (const e of edits) if (e.repo !== '') row(e.day, e.repo).edit_lines_added += e.lines_added;
    for (const l of landed) {
      const r = row(l.day, l.repo);
      r.landed_lines_added += l.lines_added;
      r.landed_agent_lines += l.agent_lines;
    }
  } else {
    for (const e of edits) row(e.day, groupBy === 'agent' ? e.agent : e.model).edit_lines_added += e.lines_added;
    for (const a of agents) row(a.day, groupBy === 'agent' ? a.agent : a.model).landed_agent_lines += a.lines;
  }
  return [...rows.values()]
    .filter((r) => r.edit_lines_added > 0 || r.landed_lines_added > 0 || r.landed_agent_lines > 0)
    .sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.group_key < b.group_key ? -1 : a.group_key > b.group_key ? 1 : 0));
}

/** Ungrouped: the days' landed lines by agent and by model, summed over the range (docs/metrics.md §4). */
export function codeLandedBy(records: readonly CodeRecord[]) {
  return {
    landed_by_agent: sumBreakdowns(
      records.map((r) => r.landed.by_agent),
      (a) => a.agent,
      (a) => a.lines,
      (agent, lines) => ({ agent, lines }),
    ) as { agent: CodeRecord['landed']['by_agent'][number]['agent']; lines: number }[],
    landed_by_model: sumBreakdowns(
      records.map((r) => r.landed.by_model),
      (m) => m.model_id,
      (m) => m.lines,
      (model_id, lines) => ({ model_id, lines }),
    ) as { model_id: string; lines: number }[],
  };
}

/** Grouped: each group over the range, most landed agent lines first, then group_key. */
export function codeGroupTotals(
  rows: readonly { group_key: string; edit_lines_added: number; landed_lines_added: number; landed_agent_lines: number }[],
) {
  const totals = new Map<string, { edit_lines_added: number; landed_lines_added: number; landed_agent_lines: number }>();
  for (const r of rows) {
    const t = totals.get(r.group_key) ?? { edit_lines_added: 0, landed_lines_added: 0, landed_agent_lines: 0 };
    t.edit_lines_added += r.edit_lines_added;
    t.landed_lines_added += r.landed_lines_added;
    t.landed_agent_lines += r.landed_agent_lines;
    totals.set(r.group_key, t);
  }
  return [...totals]
    .map(([group_key, t]) => ({ group_key, ...t }))
    .sort((a, b) => b.landed_agent_lines - a.landed_agent_lines || (a.group_key < b.group_key ? -1 : a.group_key > b.group_key ? 1 : 0));
}
