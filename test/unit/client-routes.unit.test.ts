// Every page the dashboard links to or renders by path is one the server answers with the dashboard: a
// page missing from CLIENT_ROUTES works when reached through the navigation but is a 404 when reloaded
// or opened from a link (the Teams page was).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLIENT_ROUTES } from '../../api/dashboard/routes.ts';

const app = readFileSync(join(import.meta.dirname, '../../web/src/app.tsx'), 'utf8');

describe('the dashboard pages the server serves', () => {
  it('include every page of the navigation and every path the app renders', () => {
    const linked = [...app.matchAll(/path: '(\/[a-z-]*)'/g)].map((m) => m[1]!);
    const rendered = [...app.matchAll(/path === '(\/[a-z-]*)'/g)].map((m) => m[1]!);
    expect(linked.length).toBeGreaterThan(5);
    expect(rendered.length).toBeGreaterThan(5);
    const missing = [...new Set([...linked, ...rendered])].filter((path) => !CLIENT_ROUTES.includes(path));
    expect(missing).toEqual([]);
  });
});
