// `agentmeter scim token create|list|revoke`: the bearer token a directory (Okta, Microsoft Entra ID)
// provisions people and teams with (docs/scim.md). Owners only through a server; the operator on the file.
import type { Argv, CommandModule } from 'yargs';
import { type TargetArgs, targetOptions } from './target.ts';

const backend = async (args: TargetArgs) => {
  const { identityBackend } = await import('../identity-backend.ts');
  return identityBackend(args);
};

const tokenCommand: CommandModule = {
  command: 'token <action>',
  describe: 'Mint, list and revoke SCIM tokens',
  builder: (y: Argv) =>
    y
      .command<TargetArgs & { name?: string }>(
        'create',
        "Mint a SCIM token for the organization's directory; the token is printed once, alone on the last line",
        (c) =>
          targetOptions(c)
            .option('name', { type: 'string', describe: 'A label (e.g. okta)' })
            .example('$0 scim token create --db a.duckdb --org org_123 --name okta', '')
            .example('$0 scim token create --server http://127.0.0.1:8080 --key am_OWNER', '') as never,
        async (args) => {
          const b = await backend(args);
          try {
            const { token, scimToken } = await b.createScimToken({
              ...(args.org ? { org: args.org } : {}),
              ...(args.name ? { name: args.name } : {}),
            });
            process.stdout.write(
              `SCIM token ${scimToken.id} (${scimToken.prefix}…); base URL: <server>/scim/v2\nSCIM token (shown once; paste it into the directory now):\n${token}\n`,
            );
          } finally {
            await b.close();
          }
        },
      )
      .command<TargetArgs & { json?: boolean }>(
        'list',
        "List the organization's SCIM tokens (never the tokens themselves)",
        (c) =>
          targetOptions(c)
            .option('json', { type: 'boolean', default: false, describe: 'Print JSON' })
            .example('$0 scim token list --db a.duckdb --org org_123', '') as never,
        async (args) => {
          const b = await backend(args);
          try {
            const tokens = await b.listScimTokens(args.org ? { org: args.org } : {});
            if (args.json) process.stdout.write(`${JSON.stringify(tokens, null, 2)}\n`);
            else
              for (const t of tokens)
                process.stdout.write(
                  `${t.id}\t${t.prefix}…\t${t.name ?? '-'}\tcreated ${t.createdAt}\tlast used ${t.lastUsedAt ?? 'never'}\t${t.revokedAt ? `revoked ${t.revokedAt}` : 'active'}\n`,
                );
          } finally {
            await b.close();
          }
        },
      )
      .command<TargetArgs & { id: string }>(
        'revoke <id>',
        'Revoke a SCIM token by its id (sct_…): the directory using it is refused at once',
        (c) =>
          targetOptions(c)
            .positional('id', { type: 'string', demandOption: true })
            .example('$0 scim token revoke sct_0123 --db a.duckdb --org org_123', '') as never,
        async (args) => {
          const b = await backend(args);
          try {
            const revoked = await b.revokeScimToken({ tokenId: args.id, ...(args.org ? { org: args.org } : {}) });
            process.stdout.write(revoked ? `revoked ${args.id}\n` : `${args.id} was already revoked\n`);
          } finally {
            await b.close();
          }
        },
      )
      .demandCommand(1),
  handler: () => undefined,
};

export const scimCommand: CommandModule = {
  command: 'scim <resource>',
  describe: 'SCIM 2.0 provisioning from the identity directory (docs/scim.md)',
  builder: (y: Argv) => y.command(tokenCommand).demandCommand(1),
  handler: () => undefined,
};
