// Characters a name shown to people may not hold: control, format (bidirectional overrides such as
// U+202E, zero-width characters) and line or paragraph separators. A name holding them is shown
// differently from what it is: a machine's name on the device approval page could say something else,
// a team's name on the dashboard could look like another team's. Letters of any script are fine.

/** Whether a text holds such a character. */
export const UNSHOWN_CHARACTER = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;
/** Every such character of a text (to remove them). */
export const UNSHOWN_CHARACTERS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
