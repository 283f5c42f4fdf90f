// `agentmeter statusline` in the laptop bundle, answered before the rest of the bundle is evaluated (as
// --version is by laptop-guard.ts): the agent runs it on every redraw of its status line, so it reads the
// collector's cache and prints, never loading yargs or waiting on the network.
import { agentmeterHomeOf, readStatusCache, statusLine } from '../common/status-line.ts';

const args = process.argv.slice(2);
if (args.length === 1 && args[0] === 'statusline') {
  process.stdout.on('error', () => process.exit(0));
  process.stdout.write(`${statusLine(readStatusCache(agentmeterHomeOf(process.env)), Date.now())}\n`);
  process.exit(0);
}
