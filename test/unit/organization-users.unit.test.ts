// The dashboard's walk of the organization's users (web/src/organization-users.ts), against a stub of the
// request function: every page is read, so a page that maps ids to e-mails knows everyone past the first 100.
import { describe, expect, it } from 'vitest';
import type { OrganizationUsers } from '../../web/src/api-types.ts';
import { allOrganizationUsers } from '../../web/src/organization-users.ts';

const user = (n: number) => ({
  id: `u${n}`,
  email: `p${n}@example.com`,
  role: 'member' as const,
  createdAt: '2026-01-01T00:00:00.000Z',
  metadata: {},
});

describe('allOrganizationUsers', () => {
  it('follows the cursor to the last page', async () => {
    const asked: string[] = [];
    const get = async (path: string): Promise<OrganizationUsers> => {
      asked.push(path);
      return path.includes('cursor=')
        ? { users: [user(101)], pagination: { hasMore: false } }
        : { users: Array.from({ length: 100 }, (_, i) => user(i + 1)), pagination: { hasMore: true, nextCursor: 'u100' } };
    };
    const users = await allOrganizationUsers(get);
    expect(users.map((u) => u.id)).toEqual([...Array.from({ length: 100 }, (_, i) => `u${i + 1}`), 'u101']);
    expect(asked).toEqual(['/api/v0/organization/users?limit=100', '/api/v0/organization/users?limit=100&cursor=u100']);
  });
});
