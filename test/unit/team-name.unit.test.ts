// The team name rule (common/team-name.ts) and migration 119's renaming plan, on hand-made names: NFC and
// case make one key, unshown characters are refused, and a collision after normalizing is renamed with a
// suffix that fits 128 characters and never splits a character.
import { describe, expect, it } from 'vitest';
import { cleanTeamName, renamedTeams, suffixedTeamName } from '../../common/db/migrations/119_team_names_nfc.ts';
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
    for (const bad of ['a\u200Bb', 'a\u00ADb', 'a\u202Eb', 'a\u2066b', 'a\u0007b', 'a\u0085b', 'a\u2028b', 'a\u2029b', 'a\uFEFFb'])
      expect(teamNameProblem(bad), JSON.stringify(bad)).toBe(
        'a team name holds no control character, line break, direction override or invisible space',
      );
    // Persian with a zero-width non-joiner, an emoji joined with a zero-width joiner, Hebrew with a
    // right-to-left mark, a flag of tag characters: spelled with the characters the rule keeps.
    for (const good of [
      'Zoë’s team',
      '東京',
      'Команда',
      'فريق',
      '🚀 Launch',
      'R&D (EU)',
      'نرم\u200Cافزار',
      '👩\u200D💻 Devs',
      'צוות\u200F',
      '🏴\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}',
    ])
      expect(teamNameProblem(good), good).toBeUndefined();
    // Joiners and marks alone show nothing.
    expect(teamNameProblem('\u200D\u200F')).toBe('a team name is empty');
  });

  it('refuses the blank letters, alone or inside a name; keeps Hangul syllables and Khmer letters', () => {
    // Hangul fillers (choseong, jungseong, compatibility, halfwidth), braille blank, Khmer inherent
    // vowels, combining grapheme joiner: letters or marks that show as nothing.
    for (const blank of ['\u115F', '\u1160', '\u3164', '\uFFA0', '\u2800', '\u17B4', '\u17B5', '\u034F']) {
      for (const name of [blank, `Ops${blank}`, `${blank}${blank}`])
        expect(teamNameProblem(name), JSON.stringify(name)).toBe(
          'a team name holds no control character, line break, direction override or invisible space',
        );
    }
    for (const good of ['한국 팀', '\uD55C\uAE00', 'ក្រុម', 'ㄱㄴ팀']) expect(teamNameProblem(good), good).toBeUndefined();
  });

  it('compares names without joiners and direction marks, which do not change how a name reads', () => {
    expect(teamNameKey('Ops\u200C')).toBe(teamNameKey('ops'));
    expect(teamNameKey('\u200FOps\u200E')).toBe('ops');
    expect(teamNameKey('نرم\u200Cافزار')).toBe('نرمافزار');
  });

  it('the boundary schema gives the stored name, or the problem as its issue', () => {
    expect(teamNameSchema('team').parse(` ${DECOMPOSED} `)).toBe(COMPOSED);
    const refused = teamNameSchema('team').safeParse('Pay\u202Eroll');
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.message).toBe('team holds no control character, line break, direction override or invisible space');
    expect(teamNameSchema('team').safeParse('   ').error?.issues[0]?.message).toBe('team is empty');
  });
});

describe('migration 119: the renaming plan of one organization', () => {
  const team = (team_id: string, name: string) => ({ org_id: 'org_1', team_id, name, name_key: name.trim().toLowerCase() });

  it('leaves names in the rule alone', () => {
    expect(renamedTeams([team('t1', 'Web'), team('t2', COMPOSED)])).toEqual([]);
    // A Persian name keeps its non-joiner; only its key, which compares without it, changes.
    const persian = 'نرم\u200Cافزار';
    expect(renamedTeams([team('t3', persian)])).toEqual([{ team: team('t3', persian), name: persian, key: 'نرمافزار', suffixed: false }]);
  });

  it('composes a name alone under its key; removes unshown characters; an empty one takes the team id', () => {
    expect(cleanTeamName(' Ops\u200B ')).toBe('Ops');
    expect(renamedTeams([team('t1', DECOMPOSED), team('t2', '\u200B')])).toEqual([
      { team: team('t1', DECOMPOSED), name: COMPOSED, key: '\u00E9quipe', suffixed: false },
      { team: team('t2', '\u200B'), name: 't2', key: 't2', suffixed: false },
    ]);
  });

  it('the team already in the rule keeps the name, whatever the order; the other gets the first free suffix', () => {
    const plan = renamedTeams([team('t1', DECOMPOSED), team('t2', 'e\u0301quipe (2)'), team('t3', COMPOSED)]);
    expect(plan.map((r) => [r.team.team_id, r.name, r.suffixed])).toEqual([
      // t3 keeps "Équipe", t2 its own "équipe (2)" composed; t1 takes the first suffix left, "Équipe (3)".
      ['t1', `${COMPOSED} (3)`, true],
      ['t2', '\u00E9quipe (2)', false],
    ]);
  });

  it('a suffix fits in 128 characters without splitting a character', () => {
    const long = `${'x'.repeat(TEAM_NAME_MAX - 2)}😀`;
    const renamed = suffixedTeamName(long, new Set([teamNameKey(long)]));
    expect(renamed.length).toBeLessThanOrEqual(TEAM_NAME_MAX);
    expect(renamed).toBe(`${'x'.repeat(TEAM_NAME_MAX - 4)} (2)`);
    expect(suffixedTeamName('Ops', new Set(['ops', 'ops (2)']))).toBe('Ops (3)');
  });
});
