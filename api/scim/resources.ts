// The SCIM representations agentmeter answers with (RFC 7643): a User from a users row, the list
// envelope, and the discovery documents (/ServiceProviderConfig, /ResourceTypes, /Schemas) that tell a
// directory what this server supports. Pure.

import type { ScimGroupRow } from './groups.ts';
import { MAX_RESULTS, SCIM } from './schema.ts';
import type { ScimUserRow } from './store.ts';

export function userResource(row: ScimUserRow, base: string) {
  const name = row.first_name || row.last_name;
  return {
    schemas: [SCIM.user],
    id: row.id,
    ...(row.external_id ? { externalId: row.external_id } : {}),
    userName: row.email,
    ...(name
      ? {
          name: {
            ...(row.first_name ? { givenName: row.first_name } : {}),
            ...(row.last_name ? { familyName: row.last_name } : {}),
            formatted: [row.first_name, row.last_name].filter(Boolean).join(' '),
          },
        }
      : {}),
    ...(row.display_name ? { displayName: row.display_name } : {}),
    emails: [{ value: row.email, type: 'work', primary: true }],
    active: row.active,
    meta: { resourceType: 'User', created: row.created, lastModified: row.last_modified, location: `${base}/Users/${row.id}` },
  };
}

export function groupResource(row: ScimGroupRow, base: string, withMembers = true) {
  return {
    schemas: [SCIM.group],
    id: row.team.id,
    displayName: row.team.name,
    ...(withMembers ? { members: row.members.map((m) => ({ ...m, $ref: `${base}/Users/${m.value}` })) } : {}),
    meta: { resourceType: 'Group', location: `${base}/Groups/${row.team.id}` },
  };
}

export const listResponse = (resources: unknown[], total: number, startIndex: number) => ({
  schemas: [SCIM.list],
  totalResults: total,
  startIndex,
  itemsPerPage: resources.length,
  Resources: resources,
});

export const serviceProviderConfig = (base: string) => ({
  schemas: [SCIM.serviceProviderConfig],
  documentationUri: 'https://github.com/agentmeter/agentmeter/blob/main/docs/scim.md',
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_RESULTS },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [
    {
      type: 'oauthbearertoken',
      name: 'SCIM token',
      description: 'A token an owner mints with `agentmeter scim token create`: Authorization: Bearer amscim_…',
      primary: true,
    },
  ],
  meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
});

const resourceType = (base: string, name: 'User' | 'Group') => ({
  schemas: [SCIM.resourceType],
  id: name,
  name,
  endpoint: `/${name}s`,
  description: name === 'User' ? 'A person of the organization; userName is their e-mail' : 'A team of the organization, by its name',
  schema: name === 'User' ? SCIM.user : SCIM.group,
  meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/${name}` },
});

export const resourceTypes = (base: string) => [resourceType(base, 'User'), resourceType(base, 'Group')];

const attribute = (
  name: string,
  extra: {
    type?: string;
    required?: boolean;
    mutability?: string;
    uniqueness?: string;
    multiValued?: boolean;
    subAttributes?: unknown[];
  } = {},
) => ({
  name,
  type: extra.type ?? 'string',
  multiValued: extra.multiValued ?? false,
  required: extra.required ?? false,
  caseExact: false,
  mutability: extra.mutability ?? 'readWrite',
  returned: 'default',
  uniqueness: extra.uniqueness ?? 'none',
  ...(extra.subAttributes ? { subAttributes: extra.subAttributes } : {}),
});

export const schemas = (base: string) => [
  {
    schemas: [SCIM.schema],
    id: SCIM.user,
    name: 'User',
    description: 'A person; other attributes a directory sends are accepted and not kept',
    attributes: [
      attribute('userName', { required: true, uniqueness: 'server' }),
      attribute('externalId'),
      attribute('displayName'),
      attribute('name', { type: 'complex', subAttributes: [attribute('givenName'), attribute('familyName'), attribute('formatted')] }),
      attribute('emails', {
        type: 'complex',
        multiValued: true,
        mutability: 'readOnly',
        subAttributes: [attribute('value'), attribute('type')],
      }),
      attribute('active', { type: 'boolean' }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${SCIM.user}` },
  },
  {
    schemas: [SCIM.schema],
    id: SCIM.group,
    name: 'Group',
    description: 'A team; members are users by id, each a member from the day they were added',
    attributes: [
      attribute('displayName', { required: true, uniqueness: 'server' }),
      attribute('externalId'),
      attribute('members', { type: 'complex', multiValued: true, subAttributes: [attribute('value'), attribute('display')] }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${SCIM.group}` },
  },
];
