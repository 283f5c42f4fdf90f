// The two rules of common/unshown.ts on hand-picked characters: a machine's name (the strict rule) and a
// team's name (the narrower one) both refuse the blank letters, and the refused character is named.
import { describe, expect, it } from 'vitest';
import { MISLEADING_CHARACTER, MISLEADING_CHARACTERS, refusedCharacter, UNSHOWN_CHARACTER } from '../../common/unshown.ts';

// Hangul choseong and jungseong fillers, Khmer inherent vowels, braille blank, Hangul filler, halfwidth
// Hangul filler, combining grapheme joiner: each shows as nothing or a blank.
const BLANK_LETTERS = ['\u115F', '\u1160', '\u17B4', '\u17B5', '\u2800', '\u3164', '\uFFA0', '\u034F'];

describe('the unshown characters', () => {
  it('a machine name refuses the blank letters, as it refuses controls and format characters', () => {
    for (const c of [...BLANK_LETTERS, '\u0007', '\u200B', '\u200C', '\u202E', '\u2028'])
      expect(UNSHOWN_CHARACTER.test(`ana${c}laptop`), JSON.stringify(c)).toBe(true);
    expect(UNSHOWN_CHARACTER.test('install.sh on Zoë’s MacBook — 東京 한국')).toBe(false);
  });

  it('a team name refuses them too, and removing them leaves what shows', () => {
    for (const c of BLANK_LETTERS) expect(MISLEADING_CHARACTER.test(`Ops${c}`), JSON.stringify(c)).toBe(true);
    expect(`\u3164Ops\u2800\u115F`.replace(MISLEADING_CHARACTERS, '')).toBe('Ops');
    // Hangul syllables, Khmer, Persian with a non-joiner, an emoji with a joiner stay.
    for (const name of ['한국 팀', 'ក្រុម', 'نرم\u200Cافزار', '👩\u200D💻 Devs']) expect(MISLEADING_CHARACTER.test(name), name).toBe(false);
  });

  it('names the first refused character as U+XXXX, whatever the flags of the rule', () => {
    expect(refusedCharacter('Pay\u202Eroll\u0007', MISLEADING_CHARACTER)).toBe('U+202E');
    expect(refusedCharacter('a\u0007', MISLEADING_CHARACTERS)).toBe('U+0007');
    expect(refusedCharacter('\u3164', UNSHOWN_CHARACTER)).toBe('U+3164');
    expect(refusedCharacter('Ops', MISLEADING_CHARACTER)).toBeUndefined();
  });
});
