// The SCIM list filters a directory sends (RFC 7644 §3.4.2.2), as far as agentmeter answers them: one
// `ATTRIBUTE eq "VALUE"` comparison. Okta and Microsoft Entra ID look a person up with
// `userName eq "…"` and a group with `displayName eq "…"` before creating it; a filter of any other shape
// is refused with scimType invalidFilter rather than answered wrongly, and so is a value holding a
// character the attribute's values may never hold (a control character, a direction override): no
// resource can match it, and an empty list would tell the directory that such a group or user could be
// created. Pure.
import { refusedCharacter } from '../../common/unshown.ts';
import { ScimError } from './schema.ts';

export interface EqFilter {
  /** The attribute as the filter spelled it, lowercased (attribute names are case-insensitive). */
  attribute: string;
  value: string;
}

const CONTROL = /\p{Cc}/u;
const EQ = /^\s*([A-Za-z][\w.:-]*(?:\[[^\]]*\])?(?:\.[A-Za-z]\w*)?)\s+eq\s+("(?:[^"\\]|\\.)*")\s*$/i;

/** The characters an attribute's values never hold, and what its values are, for the error's detail. */
export interface ValueRule {
  refuses: RegExp;
  /** "a team name", "an e-mail address". */
  what: string;
}

/**
 * Parses `attr eq "value"`; `allowed` are the attributes that may be compared (lowercase), `rules` what
 * some of them may not hold.
 */
export function parseEqFilter(filter: string, allowed: readonly string[], rules: Readonly<Record<string, ValueRule>> = {}): EqFilter {
  const match = EQ.exec(filter);
  if (!match) throw new ScimError(400, `filter must be one comparison ATTRIBUTE eq "VALUE"; got: ${filter}`, 'invalidFilter');
  const attribute = match[1]!.toLowerCase();
  if (!allowed.includes(attribute))
    throw new ScimError(400, `filtering on ${match[1]} is not supported; use one of ${allowed.join(', ')}`, 'invalidFilter');
  const rule = rules[attribute];
  const refuse = (text: string) => {
    const refused = rule && refusedCharacter(text, rule.refuses);
    if (refused)
      throw new ScimError(
        400,
        `the filter value holds ${refused}, a character ${rule.what} never holds (a control, direction or invisible character)`,
        'invalidFilter',
      );
  };
  // The character as sent (JSON refuses a raw control character in a string), then as an escape gives it.
  refuse(match[2]!);
  let value: string;
  try {
    value = JSON.parse(match[2]!) as string;
  } catch {
    const control = refusedCharacter(match[2]!, CONTROL);
    throw new ScimError(
      400,
      `the filter value is not a valid quoted string${control ? ` (${control} must be written as a \\u escape)` : ''}`,
      'invalidFilter',
    );
  }
  refuse(value);
  return { attribute, value };
}

/** The [startIndex, count] of a list request, clamped as RFC 7644 §3.4.2.4 says (startIndex < 1 is 1; count < 0 is 0). */
export function paging(startIndex: number | undefined, count: number | undefined, max: number): { startIndex: number; count: number } {
  return { startIndex: Math.max(1, startIndex ?? 1), count: Math.min(max, Math.max(0, count ?? max)) };
}
