// Every user of the organization: /api/v0/organization/users walked to its last page (100 a page). The
// request function is given (api.ts's `api` in the pages), so the walk is tested without a browser.
import type { OrganizationUser, OrganizationUsers } from './api-types.ts';

export async function allOrganizationUsers(get: (path: string) => Promise<OrganizationUsers>): Promise<OrganizationUser[]> {
  const users: OrganizationUser[] = [];
  let cursor: string | undefined;
  do {
    const page = await get(`/api/v0/organization/users?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    users.push(...page.users);
    cursor = page.pagination.hasMore ? page.pagination.nextCursor : undefined;
  } while (cursor);
  return users;
}
