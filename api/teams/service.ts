// The teams operations the HTTP routes and the CLI (with --db) share: import a roster file whole or not
// at all, and the teams as GET /api/v0/organization/teams shows them.
import type { z } from 'zod';
import type { Db } from '../../common/db/duckdb.ts';
import { planRoster, type RosterError } from './roster.ts';
import type { RosterImported, TeamList } from './schema.ts';
import { SINCE_ALWAYS, TeamStore } from './store.ts';

async function emails(store: TeamStore, org: string): Promise<Map<string, string>> {
  const rows = await store.users(org);
  // Exact spelling first, so two e-mails that differ only in case (allowed by users' key) stay apart.
  const byEmail = new Map<string, string>();
  for (const r of rows) byEmail.set(r.email.toLowerCase(), byEmail.get(r.email.toLowerCase()) ?? r.id);
  for (const r of rows) byEmail.set(r.email, r.id);
  return byEmail;
}

export async function importRosterText(
  db: Db,
  org: string,
  csv: string,
): Promise<{ ok: z.infer<typeof RosterImported> } | { errors: RosterError[] }> {
  const store = new TeamStore(db);
  const byEmail = await emails(store, org);
  const teams = await store.listTeams(org);
  const names = new Map(teams.map((t) => [t.id, t.name]));
  const result = planRoster(csv, {
    userId: (email) => byEmail.get(email) ?? byEmail.get(email.toLowerCase()),
    teams: new Map(teams.map((t) => [t.name, t.parentId ? (names.get(t.parentId) ?? null) : null])),
  });
  if ('errors' in result) return result;
  return { ok: await store.importRoster(org, result.plan) };
}

export async function teamListing(db: Db, org: string): Promise<z.infer<typeof TeamList>> {
  const store = new TeamStore(db);
  const [teams, memberships, users, minTeamSize] = await Promise.all([
    store.listTeams(org),
    store.memberships(org),
    store.users(org),
    store.minTeamSize(org),
  ]);
  const email = new Map(users.map((u) => [u.id, u.email]));
  const names = new Map(teams.map((t) => [t.id, t.name]));
  return {
    minTeamSize,
    teams: teams.map((t) => ({
      name: t.name,
      parent: t.parentId ? (names.get(t.parentId) ?? null) : null,
      members: memberships
        .filter((m) => m.teamId === t.id && email.has(m.userId))
        .map((m) => ({ email: email.get(m.userId) as string, from: m.firstDay === SINCE_ALWAYS ? null : m.firstDay, to: m.lastDay }))
        .sort((a, b) => a.email.localeCompare(b.email) || (a.from ?? '').localeCompare(b.from ?? '')),
    })),
  };
}
