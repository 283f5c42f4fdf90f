// `agentmeter alerts list|settings|anomalies|digest|preview`: the alerts an organization receives besides its
// budgets' (docs/metrics.md §9; docs/budgets.md): cost anomalies, with their floor and destinations, and
// the Monday digest, with its destinations and a preview; and the list of every alert fired (budgets',
// anomalies, digests) with its deliveries. A command of its own rather than more of `agentmeter budgets`:
// anomalies and the digest belong to no budget (they have no amount and no threshold), and the list is of
// all the alerts. Through a running server: setting takes an owner's key, reading an owner's or a manager's.
import type { Argv, CommandModule } from 'yargs';
import type { AlertSettingsView } from '../../api/alert-settings/schema.ts';
import type { AlertList } from '../../api/budgets/schema.ts';
import type { DigestPreview } from '../../api/digest/schema.ts';
import { UserError } from '../../common/errors.ts';
import { callServer } from '../server-call.ts';
import { type ServerArgs, serverOptions, target } from './money.ts';

// The answers' schemas are loaded when a command runs: --help and the other commands start without them.
const settingsSchema = async () => (await import('../../api/alert-settings/schema.ts')).AlertSettingsView;
const listSchema = async () => (await import('../../api/budgets/schema.ts')).AlertList;
const previewSchema = async () => (await import('../../api/digest/schema.ts')).DigestPreview;
const messages = async () => import('../../api/digest/messages.ts');

const SETTINGS = '/api/v0/organization/alert-settings';
const usd = (n: number) => `$${n.toFixed(2)}`;
const write = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
const json = (value: unknown) => write(JSON.stringify(value, null, 2));

function printSettings(s: AlertSettingsView): void {
  const where = (ds: AlertSettingsView['anomalies']['destinations']) =>
    ds.length ? ds.map((d) => `${d.type} ${d.url}`).join(', ') : 'nowhere';
  write(
    `anomalies: a day above ${s.anomalies.multiple}x the median of the days with usage of the ${s.anomalies.historyDays} before ` +
      `(${s.anomalies.minDaysWithUsage} at least) and above ${usd(s.anomalies.floorUsd)}; sent to ${where(s.anomalies.destinations)}`,
  );
  write(
    s.digest.next ? `digest: Mondays 09:00 UTC to ${where(s.digest.destinations)}; next ${s.digest.next}` : 'digest: off (no destination)',
  );
}

interface DestinationArgs extends ServerArgs {
  slack?: string[];
  webhook?: string[];
  secret?: string;
}
const destinationOptions = <T>(c: Argv<T>) =>
  c
    .option('slack', { type: 'string', array: true, describe: 'A Slack incoming-webhook URL (repeatable)' })
    .option('webhook', { type: 'string', array: true, describe: 'A webhook URL (repeatable); its body is signed with --secret' })
    .option('secret', { type: 'string', describe: "The webhooks' HMAC secret (16 characters or more)" });
const destinations = (args: DestinationArgs) => [
  ...(args.slack ?? []).map((url) => ({ type: 'slack' as const, url })),
  ...(args.webhook ?? []).map((url) => ({ type: 'webhook' as const, url, ...(args.secret ? { secret: args.secret } : {}) })),
];
const given = (args: DestinationArgs) => args.slack !== undefined || args.webhook !== undefined;

export const alertsCommand: CommandModule = {
  command: 'alerts <action>',
  describe: 'Cost anomaly alerts and the Monday digest; the list of every alert fired (budgets too)',
  builder: (y: Argv) =>
    y
      .command<ServerArgs & { month?: string }>(
        'list',
        'Every alert fired (budget thresholds, anomalies, digests), newest first, with its deliveries',
        (c) =>
          serverOptions(c)
            .option('month', { type: 'string', describe: 'Only this UTC month, YYYY-MM' })
            .example('$0 alerts list --month 2026-03 --server URL --key am_MANAGER', "March's alerts") as never,
        async (args) => {
          const { server, key } = target(args);
          const list: AlertList = await callServer(
            server,
            key,
            'GET',
            `/api/v0/organization/alerts${args.month ? `?month=${encodeURIComponent(args.month)}` : ''}`,
            await listSchema(),
          );
          if (args.json) return json(list);
          const states = (ds: { type: string; state: string }[]) =>
            ds.length ? ds.map((d) => `${d.type} ${d.state}`).join(', ') : 'no destination';
          for (const a of list.anomalies)
            write(
              `${a.fired_at}\tanomaly\t${a.scope === 'user' ? a.email : `team ${a.team}`} ${usd(a.cost_usd)} on ${a.day} (median ${usd(a.median_usd)})\t${states(a.deliveries)}`,
            );
          // A week whose usage had no price at all has no dollars (null), never a silent $0.
          for (const d of list.digests)
            write(
              `${d.sent_at}\tdigest\t${d.week.from} to ${d.week.to}: ${d.cost_usd === null ? 'no price' : usd(d.cost_usd)}\t${states(d.deliveries)}`,
            );
          for (const a of list.alerts) {
            const who = a.budget.scope === 'org' ? 'organization' : a.budget.scope === 'team' ? `team ${a.budget.team}` : a.budget.email;
            write(`${a.fired_at}\tbudget\t${who} reached ${a.threshold}% of ${a.month}\t${states(a.deliveries)}`);
          }
          if (!list.anomalies.length && !list.digests.length && !list.alerts.length) write('no alerts');
        },
      )
      .command<ServerArgs>(
        'settings',
        'Show the anomaly floor and where anomalies and the digest go',
        (c) => serverOptions(c).example('$0 alerts settings --server URL --key am_MANAGER', 'The settings') as never,
        async (args) => {
          const { server, key } = target(args);
          const s = await callServer(server, key, 'GET', SETTINGS, await settingsSchema());
          args.json ? json(s) : printSettings(s);
        },
      )
      .command<DestinationArgs & { floor?: number; none?: boolean }>(
        'anomalies',
        'Set the anomaly floor in US dollars and where anomaly alerts go (what is not given is kept)',
        (c) =>
          destinationOptions(serverOptions(c))
            .option('floor', { type: 'number', describe: 'An anomaly needs a day above this many dollars too (default 20)' })
            .option('none', { type: 'boolean', describe: 'Send anomalies nowhere (they are still listed)' })
            .example(
              '$0 alerts anomalies --floor 50 --slack https://hooks.slack.com/services/T/B/X --server URL --key am_OWNER',
              'A $50 floor, to Slack',
            ) as never,
        async (args) => {
          const { server, key } = target(args);
          if (args.none && given(args)) throw new UserError('give --none or destinations, not both');
          if (args.floor === undefined && !args.none && !given(args))
            throw new UserError('give --floor N, destinations (--slack, --webhook) or --none');
          const anomalies = {
            ...(args.floor !== undefined ? { floorUsd: args.floor } : {}),
            ...(args.none ? { destinations: [] } : given(args) ? { destinations: destinations(args) } : {}),
          };
          const s = await callServer(server, key, 'PATCH', SETTINGS, await settingsSchema(), { anomalies });
          args.json ? json(s) : printSettings(s);
        },
      )
      .command<DestinationArgs & { off?: boolean }>(
        'digest',
        'Set where the Monday digest goes (09:00 UTC, the week before), or turn it off',
        (c) =>
          destinationOptions(serverOptions(c))
            .option('off', { type: 'boolean', describe: 'No digest' })
            .example(
              '$0 alerts digest --slack https://hooks.slack.com/services/T/B/X --server URL --key am_OWNER',
              'The digest to Slack',
            ) as never,
        async (args) => {
          const { server, key } = target(args);
          if (args.off === given(args)) throw new UserError('give destinations (--slack, --webhook) or --off');
          const s = await callServer(server, key, 'PATCH', SETTINGS, await settingsSchema(), {
            digest: { destinations: args.off ? [] : destinations(args) },
          });
          args.json ? json(s) : printSettings(s);
        },
      )
      .command<ServerArgs>(
        'preview',
        'The next Monday digest, built as it will be sent (the week so far while it is not over)',
        (c) => serverOptions(c).example('$0 alerts preview --server URL --key am_MANAGER', 'What Monday’s digest says so far') as never,
        async (args) => {
          const { server, key } = target(args);
          const p: DigestPreview = await callServer(server, key, 'GET', '/api/v0/organization/digest/preview', await previewSchema());
          if (args.json) return json(p);
          const { digestHeadline, digestSections } = await messages();
          write(
            `sent ${p.sends_at}${p.destinations ? ` to ${p.destinations} destination(s)` : ' (off: no destination)'}${p.complete ? '' : '; the week so far'}`,
          );
          write(digestHeadline(p.digest));
          for (const s of digestSections(p.digest)) write(`\n${s.title}\n${s.text}`);
        },
      )
      .demandCommand(1, 'name an action: list, settings, anomalies, digest or preview'),
  handler: () => undefined,
};
