// Characters a name shown to people may not hold: control, format (bidirectional overrides such as
// U+202E, zero-width characters) and line or paragraph separators. A name holding them is shown
// differently from what it is: a machine's name on the device approval page could say something else.
// Machine names (ASCII host names in practice) refuse every such character; names people write in any
// script (team names) refuse the narrower set below. Both refuse the blank letters: characters Unicode
// files as letters or marks that render as nothing or a blank (the Hangul fillers U+115F, U+1160,
// U+3164 and U+FFA0, the braille blank U+2800, the Khmer inherent vowels U+17B4 and U+17B5, the
// combining grapheme joiner U+034F). No name is spelled with them: Hangul syllables compose without
// the fillers, and Unicode itself advises against the Khmer two.
const BLANK_LETTERS = String.raw`\u034F\u115F\u1160\u17B4\u17B5\u2800\u3164\uFFA0`;

/** Whether a text holds such a character. */
export const UNSHOWN_CHARACTER = new RegExp(`[\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}${BLANK_LETTERS}]`, 'u');

/**
 * The narrower rule for names people write in any script (team names): controls, line and paragraph
 * separators, bidirectional embeddings, overrides and isolates, and the invisible characters no script
 * spells with (zero-width space, word joiner, invisible operators, byte-order mark, soft hyphen,
 * Mongolian vowel separator, interlinear annotations) and the blank letters above. The zero-width joiner
 * and non-joiner and the direction marks stay: Persian, Indic scripts, emoji and right-to-left names
 * spell with them.
 */
export const MISLEADING_CHARACTER = new RegExp(
  `[\\p{Cc}\\p{Zl}\\p{Zp}\\u00AD\\u180E\\u200B\\u202A-\\u202E\\u2060-\\u2064\\u2066-\\u2069\\uFEFF\\uFFF9-\\uFFFB${BLANK_LETTERS}]`,
  'u',
);
/** Every such character of a name (to remove them). */
export const MISLEADING_CHARACTERS = new RegExp(MISLEADING_CHARACTER.source, 'gu');

/** Pure: the first character of `text` that `rule` refuses, as "U+202E"; undefined when there is none. */
export function refusedCharacter(text: string, rule: RegExp): string | undefined {
  const found = new RegExp(rule.source, rule.flags.replace('g', '')).exec(text)?.[0];
  return found === undefined ? undefined : `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
