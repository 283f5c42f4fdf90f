// `npm start` builds the dashboard (web/ → web/dist) and the laptop bundle (dist/laptop, which the
// server's /install.sh hands out), each when missing or stale, beside loading the sample rather than
// before it: Vite's build takes seconds of mostly one core, and on a first start the other core and the
// seconds of start-up before the load are there for it (an npm `prestart` for the laptop bundle held up
// the start by ~0.4 s). Each runs in a process of its own so that it holds up neither the server's nor
// the collector's event loop, and at a lower priority (BUILD_NICENESS): what the start waits for first is
// the server's one thread setting up the sample (~2 s), and the builds are needed only at its end. At
// the same priority they took half of that thread's core and put off the load by ~0.8 s; niced, they run
// on the core it leaves idle and finish seconds into the load, long before it ends.
import { type ChildProcess, spawn } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';
import { UserError } from '../common/errors.ts';

const BUILDS = [
  { what: 'the dashboard', script: fileURLToPath(new URL('../scripts/build-web.mjs', import.meta.url)) },
  { what: 'the laptop bundle', script: fileURLToPath(new URL('../scripts/build-laptop.mjs', import.meta.url)) },
];

/** The builds' nice value (0 is normal, 19 the lowest priority): low enough to yield a contended core. */
export const BUILD_NICENESS = 10;

/** The nice value a build runs at: BUILD_NICENESS, or this process's own when that is lower still. */
export const buildNiceness = () => Math.max(BUILD_NICENESS, getPriority());

/**
 * Starts a build script at buildNiceness(); `done` resolves when its output is up to date, and rejects
 * with what the build said.
 */
export function startBuild(what: string, script: string): { child: ChildProcess; done: Promise<void> } {
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, buildNiceness());
    } catch {
      // Exited already (nothing to build), or a system that refuses: it builds at normal priority.
    }
  }
  const done = new Promise<void>((resolve, reject) => {
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
  return { child, done };
}

/** Starts both builds at once; resolves when both outputs are up to date, rejects with the first failure. */
export function buildAssetsInBackground(): Promise<void> {
  return Promise.all(BUILDS.map(({ what, script }) => startBuild(what, script).done)).then(() => undefined);
}
