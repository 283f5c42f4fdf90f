// The team name rule (common/team-name.ts) on hand-made names: NFC and case make one key, unshown
// characters are refused.
import { describe, expect, it } from 'vitest';
import { normalizeTeamName, TEAM_NAME_MAX, teamNameKey, teamNameProblem, teamNameSchema } from '../../common/team-name.ts';

const COMPOSED = '\u00C9quipe';
const DECOMPOSED = 'E\u0301quipe';

describe('the team name rule', () => {
  it('stores a name trimmed and composed; compares by NFC and lower case', () => {
    expect(normalizeTeamName(`  ${DECOMPOSED}\t`)).toBe(COMPOSED);
    expect(new Set([COMPOSED, DECOMPOSED, '\u00E9quipe', 'e\u0301QUIPE'].map(teamNameKey))).toEqual(new Set(['\u00E9quipe']));
    // Hangul syllables typed as jamo compose too.
    expect(teamNameKey('\u1112\u1161\u11AB')).toBe('\uD55C');
    expect(teamNameKey('Web')).not.toBe(teamNameKey('Web2'));
  });

  it('refuses empty, too long and unshown characters, naming the field; takes any script and emoji', () => {
    expect(teamNameProblem('')).toBe('a team name is empty');
    expect(teamNameProblem('x'.repeat(TEAM_NAME_MAX))).toBeUndefined();
    expect(teamNameProblem('x'.repeat(TEAM_NAME_MAX + 1), 'team')).toBe('team has at most 128 characters');
    for (const bad of ['a\u200Bb', 'a\u200Db', 'a\u202Eb', 'a\u2066b', 'a\u0007b', 'a\u0085b', 'a\u2028b', 'a\u2029b', 'a\uFEFFb'])
      expect(teamNameProblem(bad), JSON.stringify(bad)).toBe(
        'a team name holds no control character, line break, direction or zero-width character',
      );
    for (const good of ['Zoë’s team', '東京', 'Команда', 'فريق', '🚀 Launch', 'R&D (EU)'])
      expect(teamNameProblem(good), good).toBeUndefined();
  });

  it('the boundary schema gives the stored name, or the problem as its issue', () => {
    expect(teamNameSchema('team').parse(` ${DECOMPOSED} `)).toBe(COMPOSED);
    const refused = teamNameSchema('team').safeParse('Pay\u202Eroll');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe('team holds no control character, line break, direction or zero-width character');
    expect(teamNameSchema('team').safeParse('   ').error?.issues[0]?.message).toBe('team is empty');
  });
});
