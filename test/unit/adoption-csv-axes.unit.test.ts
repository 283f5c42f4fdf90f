// Dashboard figures of issue #32 (web/src/figures.ts): the adoption CSV (one line per person, lists joined,
// the formula guard of common/csv-cells.ts on every text cell) and whole-number axes for counts.
import { describe, expect, it } from 'vitest';
import { adoptionCsv, WHOLE_INCRS, wholeAxisLabels } from '../../web/src/figures.ts';

describe('adoption CSV', () => {
  it('writes one line per person, with the formula guard', () => {
    const csv = adoptionCsv([
      {
        userId: 'usr_1',
        email: '=HYPERLINK("http://evil")@x.com',
        role: 'member',
        teams: ['API', 'Web'],
        agents: ['claude', 'codex'],
        firstEventAt: '2026-11-01T12:00:00.000Z',
        lastEventAt: '2026-11-10T12:00:00.000Z',
        active7: false,
        active28: true,
        state: 'quiet',
      },
      {
        userId: 'usr_2',
        email: 'b@x.com',
        role: 'owner',
        teams: [],
        agents: [],
        firstEventAt: null,
        lastEventAt: null,
        active7: false,
        active28: false,
        state: 'never',
      },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'user_id,email,role,teams,agents,state,first_event_at,last_event_at,active_7_days,active_28_days',
      `usr_1,"'=HYPERLINK(""http://evil"")@x.com",member,API; Web,claude; codex,quiet,2026-11-01T12:00:00.000Z,2026-11-10T12:00:00.000Z,no,yes`,
      'usr_2,b@x.com,owner,,,never,,,no,no',
      '',
    ]);
  });
});

describe('axes that count', () => {
  it('use whole steps only, and leave a split that is not whole unlabelled', () => {
    expect(WHOLE_INCRS.every((step) => Number.isInteger(step))).toBe(true);
    expect(wholeAxisLabels([0, 0.5, 1, 1.5, 2], String)).toEqual(['0', '', '1', '', '2']);
  });
});
