// The laptop bundle's first statements (cli/laptop.ts imports this first, and esbuild keeps module order):
// on a Node.js older than MIN_NODE, one clear line and exit 1 instead of a syntax or library error; and
// `--version` answered before any other module of the bundle is evaluated, as bin/agentmeter.js does for
// the checkout (scripts and the installer ask it often).

import { nodeTooOld } from '../common/node-version.ts';
import { VERSION } from '../common/version.ts';

const problem = nodeTooOld(process.versions.node);
if (problem) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
const args = process.argv.slice(2);
if (args.length === 1 && args[0] === '--version') {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => process.exit(error.code === 'EPIPE' ? 0 : 1));
  process.stdout.write(`${VERSION}\n`);
  process.exit(0);
}
