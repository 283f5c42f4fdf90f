// `npm start` builds the dashboard (web/ → web/dist, when missing or stale) beside loading the sample,
// not before it: Vite's build takes seconds of mostly one core, and on a first start the other core and
// the seconds of start-up before the load are there for it. It runs in a process of its own so that it
// holds up neither the server's nor the collector's event loop.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { UserError } from '../common/errors.ts';

const SCRIPT = fileURLToPath(new URL('../scripts/build-web.mjs', import.meta.url));

/** Starts `scripts/build-web.mjs`; resolves when web/dist is up to date, rejects with what the build said. */
export function buildWebInBackground(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', (error) => reject(new UserError(`cannot build the dashboard: ${error.message}`)));
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new UserError(`building the dashboard (node scripts/build-web.mjs) failed (${code ?? signal}):\n${stderr.trim()}`));
    });
  });
}
