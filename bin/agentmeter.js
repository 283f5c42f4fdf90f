#!/usr/bin/env node
// Entry point of the `agentmeter` command: registers tsx so the TypeScript sources run as they are.
import { readFileSync } from 'node:fs';

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--version') {
  // Scripts and checks ask this often, and it needs neither tsx (a third of a second) nor the CLI: the
  // version from package.json, as yargs prints it in cli/run.ts, and a closed pipe ends quietly as there.
  process.stdout.on('error', (error) => process.exit(error.code === 'EPIPE' ? 0 : 1));
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../cli/main.ts');
  await main(args);
}
