// The pure parts of teams, on small fixtures with hand-worked numbers: the CSV reader, the roster plan and
// its refusals, DuckDB's quantile_cont, the team figures (per-day members, the organization's day rows
// over members, billable tokens rounded per team and model), and the dashboard's Teams table.
import { describe, expect, it } from 'vitest';
import type { TokenRow } from '../../api/analytics/store.ts';
import { activityGroupTotals, productivityGroupTotals, tokenGroupTotals, toolGroupTotals } from '../../api/analytics/totals.ts';
import { codeGroupTotals } from '../../api/code/assemble.ts';
import {
  membersByDay,
  quantileCont,
  roundedByModel,
  type TeamUserDayRow,
  teamOrgDays,
  teamTokenRows,
  tokensByTeam,
} from '../../api/teams/figures.ts';
import { parseCsv, planRoster } from '../../api/teams/roster.ts';
import { SINCE_ALWAYS } from '../../api/teams/store.ts';
import { teamTotals } from '../../web/src/teams.ts';

describe('parseCsv', () => {
  it('reads quoted fields, doubled quotes, CRLF, a BOM and a line break inside quotes (lines counted from the start)', () => {
    const text = '\uFEFFa,b\r\n"x, y","say ""hi"""\r\n"two\nlines",z\n\nlast,\n';
    expect(parseCsv(text)).toEqual({
      records: [
        { line: 1, fields: ['a', 'b'] },
        { line: 2, fields: ['x, y', 'say "hi"'] },
        { line: 3, fields: ['two\nlines', 'z'] },
        { line: 6, fields: ['last', ''] },
      ],
    });
    expect(parseCsv('a,b\n"open,x\n')).toEqual({ error: { line: 2, reason: 'a quoted field is not closed' } });
    expect(parseCsv('a,b')).toEqual({ records: [{ line: 1, fields: ['a', 'b'] }] });
  });
});

describe('planRoster', () => {
  const users = new Map([
    ['ana@x.io', 'u_ana'],
    ['bo@x.io', 'u_bo'],
  ]);
  const context = { userId: (e: string) => users.get(e.toLowerCase()), teams: new Map<string, string | null>([['Ops', 'Web']]) };
  const head = 'email,team,parent,from,to\n';

  it('plans teams, parents and memberships; an empty email declares a team; empty dates are open', () => {
    const result = planRoster(`${head}ANA@x.io,Web,Eng,2026-02-01,\n,Eng,Company,,\nbo@x.io,web,,,2026-03-01\n`, context);
    expect(result).toEqual({
      plan: {
        parentsOnly: ['Company'],
        teams: [
          {
            name: 'Web',
            parent: 'Eng',
            members: [
              { userId: 'u_ana', firstDay: '2026-02-01', lastDay: null },
              { userId: 'u_bo', firstDay: SINCE_ALWAYS, lastDay: '2026-03-01' },
            ],
          },
          { name: 'Eng', parent: 'Company', members: [] },
        ],
      },
    });
  });

  it('names every bad line: field count, overlap, a cycle through a team the file does not name', () => {
    const text = `${head}ana@x.io,Web,,2026-01-01,2026-01-31\nana@x.io,Web,,2026-01-31,\nbo@x.io,Web\nbo@x.io,Web,Ops,,\n,Eng,,2026-01-01,\n`;
    const result = planRoster(text, context);
    expect(result).toEqual({
      errors: [
        { line: 3, reason: 'this membership of "Web" overlaps line 2' },
        { line: 4, reason: 'expected 5 fields (email,team,parent,from,to), found 2' },
        // Ops is under Web already (the file does not name Ops): Web under Ops closes a cycle.
        { line: 5, reason: 'the parent "Ops" of "Web" makes a cycle' },
        { line: 6, reason: 'from and to need an e-mail' },
      ],
    });
  });
});

describe('team figures', () => {
  it('quantile_cont interpolates linearly at (n - 1) × q', () => {
    expect(quantileCont([4, 1, 3, 2], 0.5)).toBe(2.5); // position 1.5 between 2 and 3
    expect(quantileCont([4, 1, 3, 2], 0.9)).toBeCloseTo(3.7, 12); // position 2.7: 3 + 0.7 × (4 - 3)
    expect(quantileCont([], 0.9)).toBe(0);
  });

  it('members of a day follow first and last days, inclusive', () => {
    const on = membersByDay(
      [
        { teamId: 't', userId: 'a', firstDay: '2026-03-01', lastDay: '2026-03-02' },
        { teamId: 't', userId: 'b', firstDay: SINCE_ALWAYS, lastDay: null },
        { teamId: 'other', userId: 'c', firstDay: SINCE_ALWAYS, lastDay: null },
      ],
      new Set(['t']),
    );
    expect([...on('2026-03-02')].sort()).toEqual(['a', 'b']);
    expect([...on('2026-03-03')]).toEqual(['b']);
  });

  it('rounds billable tokens per day, team and model, and shares them out by largest remainder', () => {
    const raw = [
      { day: 'D', user_id: 'u1', model: 'm', raw_billable: 2.4 },
      { day: 'D', user_id: 'u2', model: 'm', raw_billable: 2.4 },
      { day: 'D', user_id: 'u2', model: 'n', raw_billable: 0.5 },
    ];
    // m: round(4.8) = 5; n: round(0.5) = 1 (halves away from zero, as DuckDB's round).
    expect(roundedByModel(raw)).toEqual(
      new Map([
        ['D\u0000m', 5],
        ['D\u0000n', 1],
      ]),
    );
    // 0.1 + 4.1 + 0.3 is 4.5 exactly, so 5 as the organization's DECIMAL sum gives (as doubles, 4.499999999999999).
    const third = ['u1', 'u2', 'u3'].map((user_id, i) => ({ day: 'D', user_id, model: 'x', raw_billable: [0.1, 4.1, 0.3][i]! }));
    expect(roundedByModel(third)).toEqual(new Map([['D\u0000x', 5]]));
    const row = (user: string, model: string, agent: string, billable: number): TokenRow => ({
      day: 'D',
      user_id: user,
      user_email: null,
      agent,
      model,
      thinking: false,
      input_tokens: 2,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      billable_tokens: billable,
      cost_usd: null,
    });
    // The organization gave u1 and u2 2 each of m (a third user took the extra unit): the team shares 5 as 3 + 2
    // (equal remainders: u1 first), the extra unit on u1's agent with the most tokens.
    const rows = teamTokenRows(
      [row('u1', 'm', 'claude', 1), row('u1', 'm', 'droid', 1), row('u2', 'm', 'claude', 2), row('u2', 'n', 'claude', 0)],
      raw,
    );
    expect(rows.map((r) => [r.user_id, r.model, r.agent, r.billable_tokens])).toEqual([
      ['u1', 'm', 'claude', 2],
      ['u1', 'm', 'droid', 1],
      ['u2', 'm', 'claude', 2],
      ['u2', 'n', 'claude', 1],
    ]);
    const memberships = [
      { teamId: 't1', userId: 'u1', firstDay: SINCE_ALWAYS, lastDay: null },
      { teamId: 't1', userId: 'u2', firstDay: SINCE_ALWAYS, lastDay: null },
      { teamId: 't2', userId: 'u2', firstDay: SINCE_ALWAYS, lastDay: null },
    ];
    const teams = [
      { id: 't1', name: 'One' },
      { id: 't2', name: 'Two' },
    ];
    // One: m 5 + n 1 = 6; Two (u2 alone): m round(2.4) = 2 + n 1 = 3. At minimum size 2, Two is left out.
    expect(tokensByTeam(['D'], teams, memberships, 1, rows, raw).map((r) => [r.group_key, r.billable_tokens, r.input_tokens])).toEqual([
      ['One', 6, 8],
      ['Two', 3, 4],
    ]);
    expect(tokensByTeam(['D'], teams, memberships, 2, rows, raw).map((r) => r.group_key)).toEqual(['One']);
  });

  it("derives the organization's day rows over the members: DAU, WAU and MAU of members on D, ratios and shares", () => {
    const base = {
      user_email: null,
      tool_calls: 0,
      user_turns: 0,
      mcp_calls: 0,
      skill_calls: 0,
      slash_commands: 0,
      hooks: 0,
      sessions: 0,
      user_messages: 0,
      assistant_messages: 0,
      files_created: 0,
      files_edited: 0,
      git_commits: 0,
      git_prs_created: 0,
      billable_tokens: 0,
      primary_model: null,
      primary_model_tier: null,
      autonomy_ratio: null,
      delegation_level: null,
      languages: [],
      clients: [],
      sessions_with_events: 0,
      calls_auto_high: 0,
      calls_auto_medium: 0,
      calls_auto_low: 0,
      calls_manual: 0,
      lines_added: 0,
      landed_agent_lines: 0,
      cost_usd: null,
    };
    const rows: TeamUserDayRow[] = [
      // a: active 2026-02-20 (in the month before), b: active on D with 4 calls (3 auto-high) over 2 turns, 1 session.
      { ...base, day: '2026-02-20', user_id: 'a', active: true },
      {
        ...base,
        day: '2026-03-02',
        user_id: 'b',
        active: true,
        tool_calls: 4,
        user_turns: 2,
        autonomy_ratio: 2,
        sessions_with_events: 1,
        calls_auto_high: 3,
        calls_manual: 1,
        clients: ['web'],
      },
      {
        ...base,
        day: '2026-03-02',
        user_id: 'c',
        active: true,
        tool_calls: 2,
        user_turns: 1,
        autonomy_ratio: 2 / 1,
        sessions_with_events: 1,
        calls_manual: 2,
      },
    ];
    const members = () => new Set(['a', 'b', 'c']);
    const [d] = teamOrgDays(['2026-03-02'], rows, members);
    expect(d).toMatchObject({
      daily_active_users: 2,
      weekly_active_users: 2,
      monthly_active_users: 3, // a's 2026-02-20 is within D-29
      tool_calls: 6,
      web_users: 1,
      autonomy_ratio_avg: 2,
      tool_calls_per_session_avg: 3, // 6 calls / 2 sessions
      user_turns_per_session_avg: 1.5,
      share_auto_high: 0.5, // 3 of 6
      share_manual: 0.5,
    });
  });
});

describe('weekly and monthly users of a team (team=)', () => {
  it('count the members on D active in the window, though they joined on D; daily figures count members on their day', () => {
    const base = {
      sessions: 0,
      user_messages: 0,
      assistant_messages: 0,
      tool_calls: 1,
      mcp_calls: 0,
      skill_calls: 0,
      slash_commands: 0,
      hooks: 0,
      user_turns: 0,
      autonomy_ratio: null,
      sessions_with_events: 0,
      calls_auto_high: 0,
      calls_auto_medium: 0,
      calls_auto_low: 0,
      calls_manual: 0,
      clients: [],
      files_created: 0,
      files_edited: 0,
      git_commits: 0,
      git_prs_created: 0,
    } as unknown as TeamUserDayRow;
    // j joined on 2026-03-10 and was active on 03-08 (D-2) and 02-15 (D-23); k, a member all along, on 03-10.
    const rows: TeamUserDayRow[] = [
      { ...base, day: '2026-02-15', user_id: 'j', active: true },
      { ...base, day: '2026-03-08', user_id: 'j', active: true },
      { ...base, day: '2026-03-10', user_id: 'k', active: true },
    ];
    const members = (day: string) => new Set(day >= '2026-03-10' ? ['j', 'k'] : ['k']);
    const out = teamOrgDays(['2026-03-08', '2026-03-10'], rows, members);
    // On 03-08 j was no member: the team has no figure that day (no row), though j was active.
    expect(out.map((d) => d.day)).toEqual(['2026-03-10']);
    expect(out[0]).toMatchObject({
      day: '2026-03-10',
      daily_active_users: 1,
      weekly_active_users: 2,
      monthly_active_users: 2,
      tool_calls: 1,
    });
  });
});

describe("the Teams table's figures: each team over the range, summed on the server", () => {
  it('sums each team over the range and peaks its DAU (meta.group_totals)', () => {
    // Web: credits 5 + 7 = 12 (Data's 100 is another team's), 3 tool calls, DAU peak max(2, 1) = 2.
    expect(
      tokenGroupTotals([
        { group_key: 'Web', billable_tokens: 5, cost_usd: null },
        { group_key: 'Web', billable_tokens: 7, cost_usd: null },
        { group_key: 'Data', billable_tokens: 100, cost_usd: null },
      ]),
    ).toMatchObject([
      { group_key: 'Data', billable_tokens: 100 },
      { group_key: 'Web', billable_tokens: 12 },
    ]);
    expect(toolGroupTotals([{ group_key: 'Web', tool_calls: 3 }])).toEqual([{ group_key: 'Web', tool_calls: 3 }]);
    expect(
      activityGroupTotals([
        { group_key: 'Web', daily_active_users: 2 },
        { group_key: 'Web', daily_active_users: 1 },
      ]),
    ).toEqual([{ group_key: 'Web', peak_daily_active_users: 2 }]);
    expect(productivityGroupTotals([{ group_key: 'Web', files_created: 1, files_edited: 2, git_commits: 0, git_prs_created: 0 }])).toEqual([
      { group_key: 'Web', files_created: 1, files_edited: 2, git_commits: 0, git_prs_created: 0 },
    ]);
    // Agent lines landed: 4 + 3 of Web's rows (Data's 50 is another team's).
    expect(
      codeGroupTotals([
        { group_key: 'Web', edit_lines_added: 9, landed_lines_added: 10, landed_agent_lines: 4 },
        { group_key: 'Web', edit_lines_added: 0, landed_lines_added: 3, landed_agent_lines: 3 },
        { group_key: 'Data', edit_lines_added: 0, landed_lines_added: 50, landed_agent_lines: 50 },
      ]),
    ).toEqual([
      { group_key: 'Data', edit_lines_added: 0, landed_lines_added: 50, landed_agent_lines: 50 },
      { group_key: 'Web', edit_lines_added: 9, landed_lines_added: 13, landed_agent_lines: 7 },
    ]);
  });

  it("the dashboard's table lays them out per team, members on the last day, 0 for a team without a row", () => {
    const listing = {
      minTeamSize: 1,
      teams: [
        {
          name: 'Web',
          parent: 'Eng',
          members: [
            { email: 'b@x.io', from: null, to: null },
            { email: 'a@x.io', from: null, to: '2026-03-01' },
          ],
        },
        { name: 'Ops', parent: null, members: [] },
      ],
    };
    const totals = {
      tokens: [
        { group_key: 'Data', billable_tokens: 100, cost_usd: null },
        { group_key: 'Web', billable_tokens: 12, cost_usd: null },
      ],
      tools: [{ group_key: 'Web', tool_calls: 3 }],
      activity: [{ group_key: 'Web', peak_daily_active_users: 2 }],
      productivity: [{ group_key: 'Web', files_created: 1, files_edited: 2, git_commits: 0, git_prs_created: 0 }],
      code: [{ group_key: 'Web', edit_lines_added: 9, landed_lines_added: 13, landed_agent_lines: 7 }],
    };
    expect(teamTotals(listing, '2026-03-02', totals)).toEqual([
      {
        name: 'Web',
        parent: 'Eng',
        members: ['b@x.io'],
        credits: 12,
        toolCalls: 3,
        peakDau: 2,
        filesEdited: 2,
        filesCreated: 1,
        commits: 0,
        agentLines: 7,
      },
      {
        name: 'Ops',
        parent: null,
        members: [],
        credits: 0,
        toolCalls: 0,
        peakDau: 0,
        filesEdited: 0,
        filesCreated: 0,
        commits: 0,
        agentLines: 0,
      },
    ]);
  });
});
