// The `agentmeter` command. Each subcommand lives in cli/commands/; this file only lists them (the
// runner, with its error handling, is cli/run.ts). The laptop bundle has its own, shorter list: cli/laptop.ts.

import { alertsCommand } from './commands/alerts.ts';
import { batchCommand } from './commands/batch.ts';
import { codehostCommand } from './commands/codehost.ts';
import { collectCommand } from './commands/collect.ts';
import { computerCommand } from './commands/computer.ts';
import { demoCommand } from './commands/demo.ts';
import { doctorCommand } from './commands/doctor.ts';
import { exportCommand } from './commands/export.ts';
import { hooksCommand } from './commands/hooks.ts';
import { keysCommand } from './commands/keys.ts';
import { meCommand, statuslineCommand } from './commands/me.ts';
import { budgetsCommand, pricingCommand } from './commands/money.ts';
import { orgsCommand } from './commands/orgs.ts';
import { readinessCommand } from './commands/readiness.ts';
import { scimCommand } from './commands/scim.ts';
import { serveCommand } from './commands/serve.ts';
import { serviceCommand } from './commands/service.ts';
import { teamsCommand } from './commands/teams.ts';
import { uninstallCommand } from './commands/uninstall.ts';
import { usersCommand } from './commands/users.ts';
import { runCommands } from './run.ts';

/** Every command of the full CLI, in the order --help lists them. */
export const COMMANDS = [
  serveCommand,
  orgsCommand,
  usersCommand,
  keysCommand,
  teamsCommand,
  budgetsCommand,
  alertsCommand,
  pricingCommand,
  scimCommand,
  codehostCommand,
  hooksCommand,
  collectCommand,
  statuslineCommand,
  meCommand,
  serviceCommand,
  doctorCommand,
  uninstallCommand,
  batchCommand,
  exportCommand,
  readinessCommand,
  computerCommand,
  demoCommand,
];

export async function main(argv: string[]): Promise<void> {
  await runCommands(argv, COMMANDS);
}
