// SCIM PATCH (RFC 7644 §3.5.2) applied to what agentmeter keeps of a User or a Group. Pure: the current
// state and the operations in, the new state out; the routes store the difference. Accepted as real
// directories send them: an operation with no path whose value holds the attributes (Okta's
// `{"op":"replace","value":{"active":false}}`, keys possibly dotted like "name.givenName"), capitalized ops
// and "True"/"False" strings (Microsoft Entra ID), `members` with a value list or a `members[value eq "…"]`
// filter (both). Attributes agentmeter does not keep are ignored and named in `ignored` for the log.
import { z } from 'zod';
import { normalizeTeamName, teamNameProblem } from '../../common/team-name.ts';
import { type PatchOperation, ScimError, scimBoolean } from './schema.ts';

export interface UserFields {
  userName: string;
  externalId: string | null;
  displayName: string | null;
  givenName: string | null;
  familyName: string | null;
  active: boolean;
}

const text = (path: string, value: unknown): string | null => {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw new ScimError(400, `${path} must be a string`, 'invalidValue');
  if (value.length > 500) throw new ScimError(400, `${path} is longer than 500 characters`, 'invalidValue');
  return value;
};

const email = z.email().max(320);

/** Sets one attribute (path lowercased) of the user; false when agentmeter does not keep it. */
function setUserAttribute(fields: UserFields, path: string, value: unknown, op: 'add' | 'replace' | 'remove'): boolean {
  const removing = op === 'remove' || value === null;
  switch (path) {
    case 'username': {
      if (removing) throw new ScimError(400, 'userName is required and cannot be removed', 'mutability');
      const parsed = email.safeParse(value);
      if (!parsed.success) throw new ScimError(400, 'userName must be the person’s e-mail address', 'invalidValue');
      fields.userName = parsed.data.toLowerCase();
      return true;
    }
    case 'active': {
      if (removing) throw new ScimError(400, 'active cannot be removed; replace it with false to deactivate', 'mutability');
      const parsed = scimBoolean.safeParse(value);
      if (!parsed.success) throw new ScimError(400, 'active must be true or false', 'invalidValue');
      fields.active = parsed.data;
      return true;
    }
    case 'externalid':
      fields.externalId = removing ? null : text('externalId', value);
      return true;
    case 'displayname':
      fields.displayName = removing ? null : text('displayName', value);
      return true;
    case 'name.givenname':
      fields.givenName = removing ? null : text('name.givenName', value);
      return true;
    case 'name.familyname':
      fields.familyName = removing ? null : text('name.familyName', value);
      return true;
    case 'name': {
      if (removing) {
        fields.givenName = null;
        fields.familyName = null;
        return true;
      }
      if (typeof value !== 'object' || Array.isArray(value)) throw new ScimError(400, 'name must be an object', 'invalidValue');
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) setUserAttribute(fields, `name.${key.toLowerCase()}`, v, op);
      return true;
    }
    default:
      return false;
  }
}

/** The core schema's URN prefix on a path ("urn:…:core:2.0:User:active") is the same attribute. */
const stripCoreUrn = (path: string) => path.replace(/^urn:ietf:params:scim:schemas:core:2\.0:user:/i, '');

export function applyUserPatch(current: UserFields, operations: readonly PatchOperation[]): { fields: UserFields; ignored: string[] } {
  const fields = { ...current };
  const ignored: string[] = [];
  for (const operation of operations) {
    if (operation.path === undefined || operation.path === '') {
      if (operation.op === 'remove') throw new ScimError(400, 'a remove operation needs a path', 'noTarget');
      if (typeof operation.value !== 'object' || operation.value === null || Array.isArray(operation.value))
        throw new ScimError(400, 'an operation without a path needs an object value', 'invalidValue');
      for (const [key, value] of Object.entries(operation.value as Record<string, unknown>)) {
        const path = stripCoreUrn(key).toLowerCase();
        if (!setUserAttribute(fields, path, value, operation.op)) ignored.push(key);
      }
      continue;
    }
    const path = stripCoreUrn(operation.path).toLowerCase();
    if (operation.op !== 'remove' && operation.value === undefined)
      throw new ScimError(400, `${operation.op} ${operation.path} needs a value`, 'invalidValue');
    if (!setUserAttribute(fields, path, operation.value, operation.op)) ignored.push(operation.path);
  }
  return { fields, ignored };
}

export interface GroupFields {
  displayName: string;
  externalId: string | null;
  /** Member user ids. */
  members: string[];
}

const MEMBER_FILTER = /^members\[\s*value\s+eq\s+("(?:[^"\\]|\\.)*")\s*\]$/i;

const memberIds = (value: unknown): string[] => {
  const list = Array.isArray(value) ? value : [value];
  return list.map((m) => {
    const id = typeof m === 'object' && m !== null ? (m as { value?: unknown }).value : undefined;
    if (typeof id !== 'string' || id === '')
      throw new ScimError(400, 'each member must be an object with a value (a user id)', 'invalidValue');
    return id;
  });
};

export function applyGroupPatch(current: GroupFields, operations: readonly PatchOperation[]): { fields: GroupFields; ignored: string[] } {
  const fields: GroupFields = { ...current, members: [...current.members] };
  const ignored: string[] = [];
  const set = (path: string, value: unknown, op: PatchOperation['op']) => {
    switch (path.toLowerCase()) {
      case 'displayname': {
        if (op === 'remove' || value === null) throw new ScimError(400, 'displayName is required and cannot be removed', 'mutability');
        if (typeof value !== 'string') throw new ScimError(400, 'displayName must be a string', 'invalidValue');
        // The team's name as stored (NFC), refused as the roster and POST refuse it.
        const name = normalizeTeamName(value);
        const problem = teamNameProblem(name);
        if (problem) throw new ScimError(400, `displayName: ${problem}`, 'invalidValue');
        fields.displayName = name;
        return;
      }
      case 'externalid':
        fields.externalId = op === 'remove' ? null : text('externalId', value);
        return;
      case 'members': {
        if (op === 'remove' && value === undefined) {
          fields.members = [];
          return;
        }
        const ids = memberIds(value);
        if (op === 'replace') fields.members = [...new Set(ids)];
        else if (op === 'add') fields.members = [...new Set([...fields.members, ...ids])];
        else fields.members = fields.members.filter((m) => !ids.includes(m));
        return;
      }
      // The group's own id, sent back by Okta in a replace with no path: it cannot change.
      case 'id':
        return;
      default:
        ignored.push(path);
    }
  };
  for (const operation of operations) {
    const path = operation.path?.replace(/^urn:ietf:params:scim:schemas:core:2\.0:group:/i, '');
    if (path === undefined || path === '') {
      if (operation.op === 'remove') throw new ScimError(400, 'a remove operation needs a path', 'noTarget');
      if (typeof operation.value !== 'object' || operation.value === null || Array.isArray(operation.value))
        throw new ScimError(400, 'an operation without a path needs an object value', 'invalidValue');
      for (const [key, value] of Object.entries(operation.value as Record<string, unknown>)) set(key, value, operation.op);
      continue;
    }
    const filtered = MEMBER_FILTER.exec(path);
    if (filtered) {
      const id = JSON.parse(filtered[1]!) as string;
      if (operation.op === 'remove') fields.members = fields.members.filter((m) => m !== id);
      else if (!fields.members.includes(id)) fields.members.push(id);
      continue;
    }
    if (/^members\[/i.test(path)) throw new ScimError(400, `unsupported path ${path}: use members[value eq "USER_ID"]`, 'invalidPath');
    if (operation.op !== 'remove' && operation.value === undefined)
      throw new ScimError(400, `${operation.op} ${path} needs a value`, 'invalidValue');
    set(path, operation.value, operation.op);
  }
  return { fields, ignored };
}
