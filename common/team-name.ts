// Team names, the one rule every boundary that takes one applies (the roster, SCIM groups, an ID token's
// groups claim, `team=`, a team budget) and the team store checks again: trimmed, in Unicode NFC, 1 to
// 128 characters, none unshown (common/unshown.ts). A name typed "É" (U+00C9) and one sent "E" + U+0301
// look the same on every screen, so they must be one team, found by either. Names compare by key: NFC,
// then lower case. Migration 119 brought the names stored before to this rule.
import { z } from 'zod';
import { MISLEADING_CHARACTER } from './unshown.ts';

export const TEAM_NAME_MAX = 128;

/** Why a name is refused, after the subject ("a team name", "a parent name"). */
export const UNSHOWN_REASON = 'holds no control character, line break, direction override or invisible space';

/** Pure: the name as it is stored and shown: trimmed, composed (NFC). */
export const normalizeTeamName = (name: string): string => name.trim().normalize('NFC');

/** The joiners and direction marks a name may hold, which do not change how it reads. */
const JOINERS_AND_MARKS = /[\u061C\u200C-\u200F]/gu;

/**
 * Pure: what two names are compared by: composed, then lower case (composed again: lower-casing may
 * leave a sequence NFC composes), without joiners and direction marks. "Équipe", "équipe" and
 * "E\u0301quipe" have one key; so have "Ops" and "Ops" + U+200C, which look the same.
 */
export const teamNameKey = (name: string): string => normalizeTeamName(name).toLowerCase().normalize('NFC').replace(JOINERS_AND_MARKS, '');

/** Pure: why a normalized name may not be a team's, `subject` naming it in the sentence; undefined when it may. */
export function teamNameProblem(name: string, subject = 'a team name'): string | undefined {
  // Joiners and marks alone show nothing.
  if (teamNameKey(name) === '') return `${subject} is empty`;
  if (name.length > TEAM_NAME_MAX) return `${subject} has at most ${TEAM_NAME_MAX} characters`;
  if (MISLEADING_CHARACTER.test(name)) return `${subject} ${UNSHOWN_REASON}`;
  return undefined;
}

/**
 * A team name at an HTTP boundary: normalized, then checked; `label` names the field in the 400's
 * detail. The output is the name as stored, so a lookup or a write with either spelling is the same.
 */
export const teamNameSchema = (label: string) =>
  z
    .string()
    .transform(normalizeTeamName)
    .superRefine((name, ctx) => {
      const problem = teamNameProblem(name, label);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
