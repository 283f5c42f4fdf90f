// `agentmeter teams import FILE | list | min-size N`: the organization's teams (docs/metrics.md §6, docs/teams.md).
import { readFileSync } from 'node:fs';
import type { Argv, CommandModule } from 'yargs';
import { UserError } from '../../common/errors.ts';
import { type TargetArgs, targetOptions } from './target.ts';

async function withBackend<T>(
  args: TargetArgs,
  fn: (b: Awaited<ReturnType<typeof import('../teams-backend.ts')['teamsBackend']>>) => Promise<T>,
) {
  const { teamsBackend } = await import('../teams-backend.ts');
  const backend = await teamsBackend(args);
  try {
    return await fn(backend);
  } finally {
    await backend.close();
  }
}

export const teamsCommand: CommandModule = {
  command: 'teams <action>',
  describe: 'Manage teams: import the roster, list teams, set the minimum team size',
  builder: (y: Argv) =>
    y
      .command<TargetArgs & { file: string }>(
        'import <file>',
        'Import a roster CSV (email,team,parent,from,to): creates the teams it names and replaces their members; all or nothing',
        (c) =>
          targetOptions(c)
            .positional('file', { type: 'string', demandOption: true, describe: 'The roster file (CSV with a header line)' })
            .example('$0 teams import roster.csv --db a.duckdb --org org_123', 'With the server stopped')
            .example(
              '$0 teams import roster.csv --server http://127.0.0.1:8080 --key am_OWNER',
              'Through a running server (owner key)',
            ) as never,
        async (args) => {
          let csv: string;
          try {
            csv = readFileSync(args.file, 'utf8');
          } catch (error) {
            throw new UserError(`cannot read ${args.file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
          }
          const r = await withBackend(args, (b) => b.importRoster(csv));
          process.stdout.write(
            `imported: ${r.teams} team${r.teams === 1 ? '' : 's'}, ${r.memberships} membership${r.memberships === 1 ? '' : 's'}` +
              `${r.created.length ? `; created ${r.created.join(', ')}` : ''}\n`,
          );
        },
      )
      .command<TargetArgs & { json?: boolean }>(
        'list',
        'List the teams with their parent and dated members',
        (c) =>
          targetOptions(c)
            .option('json', { type: 'boolean', default: false, describe: 'Print JSON' })
            .example('$0 teams list --db a.duckdb --org org_123', 'With the server stopped')
            .example('$0 teams list --server http://127.0.0.1:8080 --key am_MANAGER --json', 'Through a running server') as never,
        async (args) => {
          const listing = await withBackend(args, (b) => b.list());
          if (args.json) {
            process.stdout.write(`${JSON.stringify(listing, null, 2)}\n`);
            return;
          }
          for (const t of listing.teams) {
            process.stdout.write(
              `${t.name}${t.parent ? ` (in ${t.parent})` : ''}: ${t.members.length} membership${t.members.length === 1 ? '' : 's'}\n`,
            );
            for (const m of t.members) process.stdout.write(`  ${m.email}\t${m.from ?? 'always'} to ${m.to ?? 'now'}\n`);
          }
          process.stdout.write(`minimum team size: ${listing.minTeamSize}\n`);
        },
      )
      .command<TargetArgs & { size: number }>(
        'min-size <size>',
        'Set the minimum team size: teams with fewer members on a day are left out of team figures',
        (c) =>
          targetOptions(c)
            .positional('size', { type: 'number', demandOption: true, describe: 'A whole number from 1 (the default) up' })
            .example('$0 teams min-size 5 --db a.duckdb --org org_123', 'Hide teams of fewer than 5 people') as never,
        async (args) => {
          await withBackend(args, (b) => b.setMinTeamSize(args.size));
          process.stdout.write(`minimum team size: ${args.size}\n`);
        },
      )
      .demandCommand(1),
  handler: () => undefined,
};
