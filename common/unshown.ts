// Characters a name shown to people may not hold: control, format (bidirectional overrides such as
// U+202E, zero-width characters) and line or paragraph separators. A name holding them is shown
// differently from what it is: a machine's name on the device approval page could say something else.
// Machine names (ASCII host names in practice) refuse every such character; names people write in any
// script (team names) refuse the narrower set below.

/** Whether a text holds such a character. */
export const UNSHOWN_CHARACTER = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/**
 * The narrower rule for names people write in any script (team names): controls, line and paragraph
 * separators, bidirectional embeddings, overrides and isolates, and the invisible characters no script
 * spells with (zero-width space, word joiner, invisible operators, byte-order mark, soft hyphen,
 * Mongolian vowel separator, interlinear annotations). The zero-width joiner and non-joiner and the
 * direction marks stay: Persian, Indic scripts, emoji and right-to-left names spell with them.
 */
export const MISLEADING_CHARACTER = /[\p{Cc}\p{Zl}\p{Zp}\u00AD\u180E\u200B\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\uFFF9-\uFFFB]/u;
/** Every such character of a name (to remove them). */
export const MISLEADING_CHARACTERS = new RegExp(MISLEADING_CHARACTER.source, 'gu');
