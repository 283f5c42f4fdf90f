// The SCIM list filters a directory sends (RFC 7644 §3.4.2.2), as far as agentmeter answers them: one
// `ATTRIBUTE eq "VALUE"` comparison. Okta and Microsoft Entra ID look a person up with
// `userName eq "…"` and a group with `displayName eq "…"` before creating it; a filter of any other shape
// is refused with scimType invalidFilter rather than answered wrongly. Pure.
import { ScimError } from './schema.ts';

export interface EqFilter {
  /** The attribute as the filter spelled it, lowercased (attribute names are case-insensitive). */
  attribute: string;
  value: string;
}

const EQ = /^\s*([A-Za-z][\w.:-]*(?:\[[^\]]*\])?(?:\.[A-Za-z]\w*)?)\s+eq\s+("(?:[^"\\]|\\.)*")\s*$/i;

/** Parses `attr eq "value"`; `allowed` are the attributes that may be compared (lowercase). */
export function parseEqFilter(filter: string, allowed: readonly string[]): EqFilter {
  const match = EQ.exec(filter);
  if (!match) throw new ScimError(400, `filter must be one comparison ATTRIBUTE eq "VALUE"; got: ${filter}`, 'invalidFilter');
  const attribute = match[1]!.toLowerCase();
  if (!allowed.includes(attribute))
    throw new ScimError(400, `filtering on ${match[1]} is not supported; use one of ${allowed.join(', ')}`, 'invalidFilter');
  let value: string;
  try {
    value = JSON.parse(match[2]!) as string;
  } catch {
    throw new ScimError(400, 'the filter value is not a valid quoted string', 'invalidFilter');
  }
  return { attribute, value };
}

/** The [startIndex, count] of a list request, clamped as RFC 7644 §3.4.2.4 says (startIndex < 1 is 1; count < 0 is 0). */
export function paging(startIndex: number | undefined, count: number | undefined, max: number): { startIndex: number; count: number } {
  return { startIndex: Math.max(1, startIndex ?? 1), count: Math.min(max, Math.max(0, count ?? max)) };
}
