// `agentmeter codehost set|list|remove`: the secret each code host (GitHub, GitLab) signs this
// organization's pull request webhooks with (docs/pull-requests.md). Owners only through a server; the
// operator on the file.
import type { Argv, CommandModule } from 'yargs';
import { z } from 'zod';
import type { Db } from '../../common/db/duckdb.ts';
import { UserError } from '../../common/errors.ts';
import { readSecretFile } from '../secret-file.ts';
import { callServer } from '../server-call.ts';
import { type TargetArgs, targetOptions } from './target.ts';

const HOSTS = ['github', 'gitlab'] as const;
type Host = (typeof HOSTS)[number];

const HostView = z.object({ host: z.enum(HOSTS), setBy: z.string(), setAt: z.string(), webhookPath: z.string() });
type HostView = z.infer<typeof HostView>;

interface CodeHostBackend {
  set(host: Host, secret: string): Promise<HostView>;
  list(): Promise<HostView[]>;
  remove(host: Host): Promise<boolean>;
  close(): Promise<void>;
}

async function onFile(path: string, org: string | undefined): Promise<CodeHostBackend> {
  if (!org) throw new UserError('--org is required with --db');
  const { openExistingDb } = await import('../../common/db/duckdb.ts');
  const db: Db = await openExistingDb(path);
  const { AccountStore } = await import('../../api/accounts/store.ts');
  if (!(await new AccountStore(db).getOrg(org))) {
    await db.close();
    throw new UserError(`no organization ${org} in ${path}`);
  }
  const { PullRequestStore } = await import('../../api/pull-requests/store.ts');
  const { SetSecretBody, hookPath } = await import('../../api/pull-requests/schema.ts');
  const { secretKey, seal } = await import('../../common/sealing.ts');
  const { gitlabTokenHash } = await import('../../api/pull-requests/verify.ts');
  const store = new PullRequestStore(db);
  const views = async () => (await store.hosts(org)).map((h) => ({ ...h, webhookPath: hookPath(h.host, org) }));
  return {
    async set(host, secret) {
      const checked = SetSecretBody.safeParse({ secret });
      if (!checked.success) throw new UserError(checked.error.issues[0]!.message);
      const stored =
        host === 'github' ? { sealed: seal(secretKey(path, true)!, secret), hash: null } : { sealed: null, hash: gitlabTokenHash(secret) };
      await store.setSecret(org, host, stored, 'operator');
      return (await views()).find((v) => v.host === host)!;
    },
    list: views,
    remove: (host) => store.removeSecret(org, host),
    close: () => db.close(),
  };
}

function throughServer(server: string, key: string, org: string | undefined): CodeHostBackend {
  const call = <T>(method: string, path: string, schema: z.ZodType<T>, body?: unknown) =>
    callServer(server, key, method, path, schema, body);
  const checkOrg = async () => {
    const me = await call('GET', '/api/v0/admin/whoami', z.object({ orgId: z.string() }));
    if (org && org !== me.orgId) throw new UserError(`--org ${org} is not the organization of this key (${me.orgId})`);
  };
  return {
    async set(host, secret) {
      await checkOrg();
      return call('PUT', `/api/v0/organization/codehosts/${host}`, HostView, { secret });
    },
    async list() {
      await checkOrg();
      return (await call('GET', '/api/v0/organization/codehosts', z.object({ codehosts: z.array(HostView) }))).codehosts;
    },
    async remove(host) {
      await checkOrg();
      return (await call('DELETE', `/api/v0/organization/codehosts/${host}`, z.object({ removed: z.boolean() }))).removed;
    },
    close: async () => {},
  };
}

function backend(args: TargetArgs): Promise<CodeHostBackend> | CodeHostBackend {
  if (args.db) return onFile(args.db, args.org);
  if (args.server && args.key) return throughServer(args.server, args.key, args.org);
  throw new UserError('give --db FILE --org ORG (server stopped) or --server URL --key OWNER_KEY (server running)');
}

/** Where the host sends its deliveries: the server's public URL when known, else the path alone. */
const webhookUrl = (view: HostView, base: string | undefined) => (base ? new URL(view.webhookPath, base).toString() : view.webhookPath);

interface SetArgs extends TargetArgs {
  host: Host;
  'secret-file': string;
  'public-url'?: string;
}

export const codehostCommand: CommandModule = {
  command: 'codehost <action>',
  describe: "Set the secrets of the code hosts' pull request webhooks (GitHub, GitLab)",
  builder: (y: Argv) =>
    y
      .command<SetArgs>(
        'set',
        "Set the secret a code host signs this organization's webhook deliveries with, and print the webhook URL",
        (c) =>
          targetOptions(c)
            .option('host', { choices: HOSTS, demandOption: true, describe: 'The code host' })
            .option('secret-file', { type: 'string', demandOption: true, describe: 'A file holding the webhook secret (16+ characters)' })
            .option('public-url', { type: 'string', describe: 'The URL the code host reaches this server at (default: --server)' })
            .example('$0 codehost set --host github --secret-file gh-secret.txt --server https://agentmeter.acme.com --key am_OWNER', '')
            .example(
              '$0 codehost set --host gitlab --secret-file gl-token.txt --db a.duckdb --org org_123 --public-url https://agentmeter.acme.com',
              '',
            ) as never,
        async (args) => {
          const secret = readSecretFile(args['secret-file'], 'the webhook secret');
          const b = await backend(args);
          try {
            const view = await b.set(args.host, secret);
            const url = webhookUrl(view, args['public-url'] ?? args.server);
            const how =
              args.host === 'github'
                ? 'GitHub: repository or organization Settings → Webhooks → Add webhook; Content type application/json; the same secret; events: Pull requests'
                : 'GitLab: project or group Settings → Webhooks; the same secret token; trigger: Merge request events';
            process.stdout.write(`${args.host} webhook secret set\nwebhook URL: ${url}\n${how}\n`);
          } finally {
            await b.close();
          }
        },
      )
      .command<TargetArgs & { json?: boolean; 'public-url'?: string }>(
        'list',
        'List the code hosts whose webhooks are taken (never their secrets)',
        (c) =>
          targetOptions(c)
            .option('json', { type: 'boolean', default: false, describe: 'Print JSON' })
            .option('public-url', { type: 'string', describe: 'The URL the code host reaches this server at (default: --server)' })
            .example('$0 codehost list --server https://agentmeter.acme.com --key am_OWNER', '')
            .example('$0 codehost list --db a.duckdb --org org_123 --json', '') as never,
        async (args) => {
          const b = await backend(args);
          try {
            const views = await b.list();
            if (args.json) process.stdout.write(`${JSON.stringify(views, null, 2)}\n`);
            else
              for (const v of views)
                process.stdout.write(`${v.host}\t${webhookUrl(v, args['public-url'] ?? args.server)}\tset by ${v.setBy} at ${v.setAt}\n`);
          } finally {
            await b.close();
          }
        },
      )
      .command<TargetArgs & { host: Host }>(
        'remove',
        "Remove a code host's secret: its deliveries are refused from then on",
        (c) =>
          targetOptions(c)
            .option('host', { choices: HOSTS, demandOption: true, describe: 'The code host' })
            .example('$0 codehost remove --host gitlab --server https://agentmeter.acme.com --key am_OWNER', '') as never,
        async (args) => {
          const b = await backend(args);
          try {
            process.stdout.write((await b.remove(args.host)) ? `${args.host} webhook secret removed\n` : `${args.host} had no secret\n`);
          } finally {
            await b.close();
          }
        },
      )
      .demandCommand(1),
  handler: () => undefined,
};
