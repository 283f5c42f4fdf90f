// The pure parts of SCIM: the `eq` filter, paging as RFC 7644 clamps it, and PATCH applied to a user's
// and a group's fields, on the shapes Okta and Microsoft Entra ID send.
import { describe, expect, it } from 'vitest';
import { paging, parseEqFilter } from '../../api/scim/filter.ts';
import { applyGroupPatch, applyUserPatch, type UserFields } from '../../api/scim/patch.ts';
import { PatchOperation, ScimError } from '../../api/scim/schema.ts';
import { MISLEADING_CHARACTER } from '../../common/unshown.ts';

const ops = (list: unknown[]) => list.map((o) => PatchOperation.parse(o));
const ana: UserFields = { userName: 'ana@x.com', externalId: 'e1', displayName: null, givenName: 'Ana', familyName: 'Lee', active: true };

describe('parseEqFilter', () => {
  it('reads one eq comparison, attribute names in any case, the value as a JSON string', () => {
    expect(parseEqFilter('userName eq "Ana@X.com"', ['username'])).toEqual({ attribute: 'username', value: 'Ana@X.com' });
    expect(parseEqFilter('  DISPLAYNAME Eq "Data \\"core\\""  ', ['displayname'])).toEqual({
      attribute: 'displayname',
      value: 'Data "core"',
    });
    expect(parseEqFilter('emails[type eq "work"].value eq "a@b.c"', ['emails[type eq "work"].value']).value).toBe('a@b.c');
  });
  it('refuses other operators, other attributes and junk with invalidFilter', () => {
    for (const filter of ['userName co "a"', 'userName eq "a" and active eq true', 'userName eq a', 'title eq "x"', ''])
      expect(() => parseEqFilter(filter, ['username']), filter).toThrow(ScimError);
    try {
      parseEqFilter('userName sw "a"', ['username']);
    } catch (error) {
      expect((error as ScimError).scimType).toBe('invalidFilter');
    }
  });
});

describe('parseEqFilter with value rules', () => {
  const rules = { displayname: { refuses: MISLEADING_CHARACTER, what: 'a team name' } };
  const refusal = (filter: string): ScimError => {
    try {
      parseEqFilter(filter, ['displayname', 'externalid'], rules);
    } catch (error) {
      return error as ScimError;
    }
    throw new Error(`${filter} was taken`);
  };

  it('refuses a value holding a character the attribute never holds with invalidFilter, naming it', () => {
    const override = refusal('displayName eq "Pay\u202Eroll"');
    expect([override.status, override.scimType]).toEqual([400, 'invalidFilter']);
    expect(override.message).toMatch(/U\+202E, a character a team name never holds/);
    // A control character sent raw, or as the JSON escape a filter value may hold.
    expect(refusal('displayName eq "a\u0007b"').message).toMatch(/holds U\+0007/);
    expect(refusal('displayName eq "a\\u0007b"').message).toMatch(/holds U\+0007/);
    expect(refusal('displayName eq "Pay\\u202eroll"').message).toMatch(/holds U\+202E/);
    // Without a rule, a raw control character is still no JSON string: named too.
    expect(refusal('externalId eq "a\u0007b"').message).toMatch(/not a valid quoted string \(U\+0007/);
    expect(refusal('displayName eq "\u3164"').message).toMatch(/U\+3164/);
  });

  it('takes names of any script, and any value of an attribute without a rule', () => {
    expect(parseEqFilter('displayName eq "نرم\u200Cافزار"', ['displayname'], rules).value).toBe('نرم\u200Cافزار');
    expect(parseEqFilter('displayName eq "한국 팀"', ['displayname'], rules).value).toBe('한국 팀');
    expect(parseEqFilter('externalId eq "a\u202Eb"', ['externalid'], rules).value).toBe('a\u202Eb');
  });
});

describe('paging', () => {
  it('clamps startIndex below 1 to 1, count below 0 to 0 and above the maximum to it', () => {
    expect(paging(undefined, undefined, 200)).toEqual({ startIndex: 1, count: 200 });
    expect(paging(-5, -1, 200)).toEqual({ startIndex: 1, count: 0 });
    expect(paging(3, 1000, 200)).toEqual({ startIndex: 3, count: 200 });
  });
});

describe('applyUserPatch', () => {
  it('Entra: capitalized ops, dotted paths, "False" strings; unknown attributes ignored and named', () => {
    const { fields, ignored } = applyUserPatch(
      ana,
      ops([
        { op: 'Replace', path: 'name.familyName', value: 'Li' },
        { op: 'Replace', path: 'active', value: 'False' },
        { op: 'Add', path: 'title', value: 'Engineer' },
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'other@x.com' },
      ]),
    );
    expect(fields).toEqual({ ...ana, familyName: 'Li', active: false });
    expect(ignored).toEqual(['title', 'emails[type eq "work"].value']);
  });
  it('Okta: replace without a path, its value holding the attributes (nested or dotted)', () => {
    const { fields } = applyUserPatch(
      ana,
      ops([{ op: 'replace', value: { active: false, name: { givenName: 'Anna' }, 'name.familyName': 'L' } }]),
    );
    expect(fields).toEqual({ ...ana, active: false, givenName: 'Anna', familyName: 'L' });
  });
  it('remove clears optional attributes and refuses required ones; userName must stay an e-mail', () => {
    expect(applyUserPatch(ana, ops([{ op: 'remove', path: 'externalId' }])).fields.externalId).toBeNull();
    expect(() => applyUserPatch(ana, ops([{ op: 'remove', path: 'userName' }]))).toThrow(/cannot be removed/);
    expect(() => applyUserPatch(ana, ops([{ op: 'remove', path: 'active' }]))).toThrow(/cannot be removed/);
    expect(() => applyUserPatch(ana, ops([{ op: 'replace', path: 'userName', value: 'nope' }]))).toThrow(/e-mail/);
    expect(() => applyUserPatch(ana, ops([{ op: 'remove' }]))).toThrow(/needs a path/);
    expect(
      applyUserPatch(ana, ops([{ op: 'replace', path: 'urn:ietf:params:scim:schemas:core:2.0:User:userName', value: 'B@x.com' }])).fields
        .userName,
    ).toBe('b@x.com');
  });
});

describe('applyGroupPatch', () => {
  const group = { displayName: 'Data', externalId: null, members: ['u1', 'u2'] };
  it('adds and removes members by value list (Entra) and by members[value eq] path (Okta), in order', () => {
    const { fields } = applyGroupPatch(
      group,
      ops([
        { op: 'Add', path: 'members', value: [{ value: 'u3' }, { value: 'u1' }] },
        { op: 'Remove', path: 'members', value: [{ value: 'u2' }] },
        { op: 'remove', path: 'members[value eq "u1"]' },
      ]),
    );
    expect(fields.members).toEqual(['u3']);
  });
  it('replaces members and the name; remove members without a value empties the group', () => {
    expect(applyGroupPatch(group, ops([{ op: 'replace', path: 'members', value: [{ value: 'u9' }] }])).fields.members).toEqual(['u9']);
    expect(applyGroupPatch(group, ops([{ op: 'remove', path: 'members' }])).fields.members).toEqual([]);
    expect(applyGroupPatch(group, ops([{ op: 'replace', value: { id: 'team_1', displayName: 'Data Eng' } }])).fields.displayName).toBe(
      'Data Eng',
    );
    expect(() => applyGroupPatch(group, ops([{ op: 'remove', path: 'displayName' }]))).toThrow(/cannot be removed/);
    expect(() => applyGroupPatch(group, ops([{ op: 'add', path: 'members[display eq "x"]', value: [] }]))).toThrow(/unsupported path/);
  });
});
