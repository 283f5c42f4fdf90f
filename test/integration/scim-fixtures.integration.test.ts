// The requests Okta and Microsoft Entra ID send (test/fixtures/scim/*, SOURCE.md says where each shape
// comes from), replayed in order against the real /scim/v2 routes: each answers the status and the parts
// of the body the fixture names.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestServer, testServer } from '../helpers/server.ts';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'scim');

interface Fixture {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  status: number;
  capture?: string;
  expect?: unknown;
}

let server: TestServer;
beforeAll(async () => {
  server = await testServer({ decodeWorkers: 0 });
});
afterAll(() => server.close());

const fill = (text: string, ids: Record<string, string>) => text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => ids[name] ?? `{{${name}}}`);

describe.each(['okta', 'entra'])('%s requests, replayed', (vendor) => {
  it('every request answers as the directory expects', async () => {
    const org = await server.seedOrg(vendor);
    const minted = await server.app.inject({
      method: 'POST',
      url: '/api/v0/admin/scim/tokens',
      headers: bearer(org.users.owner.key),
      payload: { name: vendor },
    });
    const token = minted.json().token as string;
    const ids: Record<string, string> = {};
    const files = readdirSync(join(DIR, vendor))
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(files.length).toBeGreaterThanOrEqual(12);
    for (const file of files) {
      const fixture = JSON.parse(fill(readFileSync(join(DIR, vendor, file), 'utf8'), ids)) as Fixture;
      const res = await server.app.inject({
        method: fixture.method,
        url: `/scim/v2${fixture.path}`,
        headers: {
          ...bearer(token),
          accept: 'application/scim+json',
          ...(fixture.body ? { 'content-type': 'application/scim+json' } : {}),
        },
        ...(fixture.body ? { payload: JSON.stringify(fixture.body) } : {}),
      });
      expect(res.statusCode, `${vendor}/${file}: ${res.body}`).toBe(fixture.status);
      if (res.statusCode !== 204) expect(String(res.headers['content-type']), file).toMatch(/^application\/scim\+json/);
      if (fixture.expect) expect(res.json(), `${vendor}/${file}`).toMatchObject(fixture.expect as object);
      if (fixture.capture) ids[fixture.capture] = res.json().id;
    }
  });
});
