// `agentmeter pricing set|list` and `agentmeter budgets set|remove|list`: the organization's own prices and
// its budgets (docs/metrics.md §7, §8; docs/budgets.md), through a running server with an owner's key
// (listing: an owner's or a manager's), so a price change re-prices its days and every budget is checked
// as the dashboard's are.
import type { Argv, CommandModule } from 'yargs';
import type { BudgetList } from '../../api/budgets/schema.ts';
import type { PriceList } from '../../api/pricing/schema.ts';

// The answers' schemas are loaded when a command runs: --help and the other commands start without them.
const priceList = async () => (await import('../../api/pricing/schema.ts')).PriceList;
const budgetList = async () => (await import('../../api/budgets/schema.ts')).BudgetList;

import { loadConfig } from '../../common/config.ts';
import { UserError } from '../../common/errors.ts';
import { teamNameKey } from '../../common/team-name.ts';
import { hiddenKeyDefault } from '../machine-options.ts';
import { callServer } from '../server-call.ts';

export interface ServerArgs {
  server?: string;
  key?: string;
  json?: boolean;
}

export function serverOptions<T>(y: Argv<T>): Argv<T & ServerArgs> {
  const env = loadConfig().env;
  return y
    .option('server', { type: 'string', describe: 'Running server URL (env AGENTMETER_SERVER)', default: env.AGENTMETER_SERVER })
    .option('key', {
      type: 'string',
      describe: 'Owner API key (listing: owner or manager; env AGENTMETER_API_KEY)',
      ...hiddenKeyDefault(env.AGENTMETER_API_KEY),
    })
    .option('json', { type: 'boolean', default: false, describe: 'Print the answer as JSON' }) as Argv<T & ServerArgs>;
}

export function target(args: ServerArgs): { server: string; key: string } {
  if (!args.server || !args.key) throw new UserError('give --server URL and --key KEY (or AGENTMETER_SERVER and AGENTMETER_API_KEY)');
  return { server: args.server, key: args.key };
}

const usd = (n: number | null | undefined) => (n === null || n === undefined ? '-' : `$${n}`);

function printPrices(list: PriceList, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return;
  }
  if (list.rebuilt) process.stdout.write(`dollars computed again for ${list.rebuilt.from} to ${list.rebuilt.to}\n`);
  if (!list.prices.length) process.stdout.write('no prices of the organization: list prices only\n');
  for (const p of list.prices)
    process.stdout.write(
      `${p.model}\tfrom ${p.effectiveFrom}\tinput ${usd(p.inputMtok)}\toutput ${usd(p.outputMtok)}\tcache read ${usd(p.cacheReadMtok)}` +
        `\tcache write ${usd(p.cacheWriteMtok)}\t1-hour write ${usd(p.cacheWrite1hMtok)}\tper million tokens${p.note ? `\t(${p.note})` : ''}\n`,
    );
}

function printBudgets(list: BudgetList, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return;
  }
  if (!list.budgets.length) process.stdout.write('no budgets\n');
  for (const b of list.budgets) {
    const who = b.scope === 'org' ? 'organization' : b.scope === 'team' ? `team ${b.team}` : `user ${b.email}`;
    const amount = b.unit === 'usd' ? `$${b.usage} of $${b.monthlyUsd}` : `${b.usage} of ${b.monthlyCredits} Standard Credits`;
    process.stdout.write(
      `${who}: ${amount} in ${list.month} (${b.percentage}%), alerts at ${b.thresholds.map((t) => `${t}%`).join(', ')}` +
        `${b.destinations.length ? ` to ${b.destinations.map((d) => `${d.type} ${d.url}`).join(', ')}` : ''}\n`,
    );
  }
}

interface PriceArgs extends ServerArgs {
  model: string;
  from: string;
  input: number;
  output: number;
  cacheRead?: number;
  cacheWrite?: number;
  cacheWrite1h?: number;
  note?: string;
}

export const pricingCommand: CommandModule = {
  command: 'pricing <action>',
  describe: "The organization's own prices in US dollars per million tokens (they win over the list prices)",
  builder: (y: Argv) =>
    y
      .command<PriceArgs>(
        'set <model>',
        'Set the price of a model (or a pattern with *) from a day; its days are priced again',
        (c) =>
          serverOptions(c)
            .positional('model', {
              type: 'string',
              demandOption: true,
              describe: 'A model id as the agents report it, or a pattern with *',
            })
            .option('from', { type: 'string', demandOption: true, describe: 'The UTC day it applies from, YYYY-MM-DD' })
            .option('input', { type: 'number', demandOption: true, describe: 'US dollars per million input tokens' })
            .option('output', { type: 'number', demandOption: true, describe: 'US dollars per million output tokens' })
            .option('cache-read', { type: 'number', describe: 'per million cache-read tokens (default: the input price)' })
            .option('cache-write', { type: 'number', describe: 'per million cache-write tokens (default: the input price)' })
            .option('cache-write-1h', {
              type: 'number',
              describe: 'per million one-hour cache-write tokens (default: the cache-write price)',
            })
            .option('note', { type: 'string', describe: 'Why this price (a contract, a local model)' })
            .example(
              '$0 pricing set qwen3-coder-plus --from 2026-03-01 --input 1 --output 5 --cache-read 0.1 --server http://127.0.0.1:8080 --key am_OWNER',
              'A negotiated price',
            ) as never,
        async (args) => {
          const { server, key } = target(args);
          const body = {
            model: args.model,
            effectiveFrom: args.from,
            inputMtok: args.input,
            outputMtok: args.output,
            ...(args.cacheRead !== undefined ? { cacheReadMtok: args.cacheRead } : {}),
            ...(args.cacheWrite !== undefined ? { cacheWriteMtok: args.cacheWrite } : {}),
            ...(args.cacheWrite1h !== undefined ? { cacheWrite1hMtok: args.cacheWrite1h } : {}),
            ...(args.note !== undefined ? { note: args.note } : {}),
          };
          printPrices(await callServer(server, key, 'PUT', '/api/v0/organization/pricing', await priceList(), body), args.json);
        },
      )
      .command<ServerArgs & { model: string; from: string }>(
        'remove <model>',
        'Remove the price of a model set from a day (the list price applies again)',
        (c) =>
          serverOptions(c)
            .positional('model', { type: 'string', demandOption: true })
            .option('from', { type: 'string', demandOption: true, describe: 'The day the price was set from' })
            .example(
              '$0 pricing remove qwen3-coder-plus --from 2026-03-01 --server URL --key am_OWNER',
              'The list price applies again',
            ) as never,
        async (args) => {
          const { server, key } = target(args);
          const query = new URLSearchParams({ model: args.model, effectiveFrom: args.from });
          printPrices(await callServer(server, key, 'DELETE', `/api/v0/organization/pricing?${query}`, await priceList()), args.json);
        },
      )
      .command<ServerArgs>(
        'list',
        "List the organization's own prices",
        (c) => serverOptions(c).example('$0 pricing list --server URL --key am_MANAGER', 'Model, day, dollars per million tokens') as never,
        async (args) => {
          const { server, key } = target(args);
          printPrices(await callServer(server, key, 'GET', '/api/v0/organization/pricing', await priceList()), args.json);
        },
      )
      .demandCommand(1, 'name an action: set, remove or list'),
  handler: () => undefined,
};

interface BudgetArgs extends ServerArgs {
  scope: 'org' | 'team' | 'user';
  team?: string;
  email?: string;
  usd?: number;
  credits?: number;
  thresholds?: string;
  slack?: string[];
  webhook?: string[];
  secret?: string;
  /** false (--no-destinations): the budget alerts no one. */
  destinations?: boolean;
}

/**
 * The destinations a `budgets set` without --slack or --webhook keeps: the same budget's, as the server
 * showed them (scheme and host), which it takes back as the ones it stored. The server replaces a budget
 * whole, so without them a change of amount would silence its alerts.
 */
export function destinationsAsShown(
  current: BudgetList,
  args: Pick<BudgetArgs, 'scope' | 'team' | 'email'>,
): { type: 'slack' | 'webhook'; url: string }[] {
  // The budget the server would replace: its team as the server compares team names, its e-mail in any case.
  const budget = current.budgets.find(
    (b) =>
      b.scope === args.scope &&
      teamNameKey(b.team ?? '') === teamNameKey(args.team ?? '') &&
      (b.email ?? '').toLowerCase() === (args.email ?? '').toLowerCase(),
  );
  return (budget?.destinations ?? []).map(({ type, url }) => ({ type, url }));
}

/** "50,75,90,100" → [50, 75, 90, 100]; a bad list is the user's error. */
export function parseThresholds(text: string): number[] {
  const values = text.split(',').map((t) => t.trim());
  if (values.some((t) => !/^\d+$/.test(t)))
    throw new UserError(`--thresholds takes whole percentages separated by commas, like 50,75,90,100; got "${text}"`);
  return values.map(Number);
}

const whoOptions = <T>(c: Argv<T>) =>
  c
    .option('scope', { choices: ['org', 'team', 'user'] as const, default: 'org' as const, describe: 'What the budget counts' })
    .option('team', { type: 'string', describe: 'The team (scope team)' })
    .option('email', { type: 'string', describe: 'The user (scope user)' });

export const budgetsCommand: CommandModule = {
  command: 'budgets <action>',
  describe: 'Monthly budgets in US dollars or Standard Credits, with alert thresholds and destinations',
  builder: (y: Argv) =>
    y
      .command<BudgetArgs>(
        'set',
        'Set one budget (replacing the one of the same organization, team or user); the others stay',
        (c) =>
          whoOptions(serverOptions(c))
            .option('usd', { type: 'number', describe: 'US dollars per UTC month' })
            .option('credits', { type: 'number', describe: 'Standard Credits per UTC month' })
            .option('thresholds', { type: 'string', describe: 'Alert percentages, comma-separated (default 50,75,90,100)' })
            .option('slack', { type: 'string', array: true, describe: 'A Slack incoming-webhook URL to alert (repeatable)' })
            .option('webhook', { type: 'string', array: true, describe: 'A webhook URL to alert (repeatable)' })
            .option('secret', { type: 'string', describe: "The webhooks' HMAC secret (16 characters or more)" })
            .option('destinations', {
              type: 'boolean',
              default: true,
              describe: 'Without --slack or --webhook, keep the alert destinations the budget has (--no-destinations: alert no one)',
            })
            .example(
              '$0 budgets set --usd 5000 --slack https://hooks.slack.com/services/T/B/X --server URL --key am_OWNER',
              "The organization's",
            )
            .example(
              '$0 budgets set --scope team --team Platform --usd 800 --thresholds 80,100 --server URL --key am_OWNER',
              "A team's",
            ) as never,
        async (args) => {
          const { server, key } = target(args);
          if ((args.usd === undefined) === (args.credits === undefined)) throw new UserError('give either --usd N or --credits N');
          // A secret is given with the webhooks it signs for: kept destinations keep their own.
          if (args.secret !== undefined && !args.webhook)
            throw new UserError('--secret is the secret of the --webhook URLs given with it; give them again with the new secret');
          const budget = {
            scope: args.scope,
            ...(args.team !== undefined ? { team: args.team } : {}),
            ...(args.email !== undefined ? { email: args.email } : {}),
            ...(args.usd !== undefined ? { monthlyUsd: args.usd } : { monthlyCredits: args.credits }),
            ...(args.thresholds !== undefined ? { thresholds: parseThresholds(args.thresholds) } : {}),
            destinations:
              args.slack || args.webhook
                ? [
                    ...(args.slack ?? []).map((url) => ({ type: 'slack' as const, url })),
                    ...(args.webhook ?? []).map((url) => ({
                      type: 'webhook' as const,
                      url,
                      ...(args.secret ? { secret: args.secret } : {}),
                    })),
                  ]
                : args.destinations === false
                  ? []
                  : destinationsAsShown(await callServer(server, key, 'GET', '/api/v0/organization/budgets', await budgetList()), args),
          };
          printBudgets(await callServer(server, key, 'PATCH', '/api/v0/organization/budgets', await budgetList(), { budget }), args.json);
        },
      )
      .command<BudgetArgs>(
        'remove',
        'Remove one budget',
        (c) =>
          whoOptions(serverOptions(c)).example(
            '$0 budgets remove --scope team --team Platform --server URL --key am_OWNER',
            "Remove the team's budget",
          ) as never,
        async (args) => {
          const { server, key } = target(args);
          const remove = {
            scope: args.scope,
            ...(args.team !== undefined ? { team: args.team } : {}),
            ...(args.email !== undefined ? { email: args.email } : {}),
          };
          printBudgets(await callServer(server, key, 'PATCH', '/api/v0/organization/budgets', await budgetList(), { remove }), args.json);
        },
      )
      .command<ServerArgs>(
        'list',
        'List the budgets with this month’s usage',
        (c) => serverOptions(c).example('$0 budgets list --server URL --key am_MANAGER', 'Each budget, its usage and share') as never,
        async (args) => {
          const { server, key } = target(args);
          printBudgets(await callServer(server, key, 'GET', '/api/v0/organization/budgets', await budgetList()), args.json);
        },
      )
      .demandCommand(1, 'name an action: set, remove or list'),
  handler: () => undefined,
};
