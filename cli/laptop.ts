// The entry of the laptop bundle (scripts/build-laptop.mjs → dist/laptop/agentmeter.mjs): what a
// developer's machine runs, installed by the server's install.sh. Only the machine's commands: no server,
// no DuckDB, no pipeline (test/unit/laptop-bundle.unit.test.ts checks what the bundle holds).
import './laptop-guard.ts';
import './statusline-fast.ts';
import { collectCommand } from './commands/collect.ts';
import { computerCommand } from './commands/computer.ts';
import { doctorCommand } from './commands/doctor.ts';
import { hooksCommand } from './commands/hooks.ts';
import { meCommand, statuslineCommand } from './commands/me.ts';
import { readinessCommand } from './commands/readiness.ts';
import { serviceCommand } from './commands/service.ts';
import { uninstallCommand } from './commands/uninstall.ts';
import { runCommands } from './run.ts';

/** The machine's commands, the collector's user service (`service install|uninstall|status`) among them. */
const LAPTOP_COMMANDS = [
  hooksCommand,
  collectCommand,
  statuslineCommand,
  meCommand,
  serviceCommand,
  doctorCommand,
  uninstallCommand,
  computerCommand,
  readinessCommand,
];

void runCommands(process.argv.slice(2), LAPTOP_COMMANDS);
