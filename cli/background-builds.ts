// `npm start` builds the dashboard (web/ → web/dist) and the laptop bundle (dist/laptop, which the
// server's /install.sh hands out), each when missing or stale, beside loading the sample rather than
// before it: Vite's build takes seconds of mostly one core, and on a first start the other core and the
// seconds of start-up before the load are there for it (an npm `prestart` for the laptop bundle held up
// the start by ~0.4 s). Each runs in a process of its own so that it holds up neither the server's nor
// the collector's event loop.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { UserError } from '../common/errors.ts';

const BUILDS = [
  { what: 'the dashboard', script: fileURLToPath(new URL('../scripts/build-web.mjs', import.meta.url)) },
  { what: 'the laptop bundle', script: fileURLToPath(new URL('../scripts/build-laptop.mjs', import.meta.url)) },
];

/** Runs a build script; resolves when its output is up to date, rejects with what the build said. */
function buildInBackground(what: string, script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const name = `node scripts/${script.split('/').pop()}`;
    child.once('error', (error) => reject(new UserError(`cannot build ${what}: ${error.message}`)));
    child.once('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new UserError(`building ${what} (${name}) failed (${code ?? signal}):\n${stderr.trim()}`));
    });
  });
}

/** Starts both builds at once; resolves when both outputs are up to date, rejects with the first failure. */
export function buildAssetsInBackground(): Promise<void> {
  return Promise.all(BUILDS.map(({ what, script }) => buildInBackground(what, script))).then(() => undefined);
}
