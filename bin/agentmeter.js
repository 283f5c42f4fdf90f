#!/usr/bin/env node
// Entry point of the `agentmeter` command. It runs the built server (dist/server/agentmeter.mjs, plain
// JavaScript from scripts/build-server.mjs), building it first when it is missing or older than a source
// (npm ci and npm install build it; after a `git pull` the first command rebuilds it, about a second).
// AGENTMETER_FROM_SOURCES=1 runs the TypeScript sources through tsx instead (the test suite does, and
// development may): tsx is a development dependency.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--version') {
  // Scripts and checks ask this often, and it needs neither the build nor the CLI: the version from
  // package.json, as yargs prints it in cli/run.ts, and a closed pipe ends quietly as there.
  process.stdout.on('error', (error) => process.exit(error.code === 'EPIPE' ? 0 : 1));
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  process.stdout.write(`${version}\n`);
} else if (process.env.AGENTMETER_FROM_SOURCES === '1') {
  const { register } = await import('tsx/esm/api');
  register();
  const { main } = await import('../cli/main.ts');
  await main(args);
} else {
  const { ensureServerBuild, SERVER_ENTRY } = await import('../scripts/build-server.mjs');
  try {
    await ensureServerBuild();
  } catch (error) {
    process.stderr.write(
      `agentmeter: cannot build the server (dist/server) from its sources: ${error.message}\nRun npm ci in ${new URL('..', import.meta.url).pathname} (it installs esbuild and builds it).\n`,
    );
    process.exit(1);
  }
  const { main } = await import(pathToFileURL(SERVER_ENTRY).href);
  await main(args);
}
