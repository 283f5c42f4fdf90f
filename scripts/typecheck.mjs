// `npm test`'s and `npm run typecheck`'s type check: the server and CLI (tsconfig.json) and the dashboard
// (web/tsconfig.json) at once, each tsc on a core of its own (one after the other they took ~15 s of the
// suite's wall time, together ~10 s). Exits non-zero when either fails, with each one's output as it printed it.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const projects = ['.', 'web'];
const results = await Promise.all(
  projects.map(
    (project) =>
      new Promise((resolve) => {
        const child = spawn(process.execPath, [tsc, '--noEmit', '-p', project], { stdio: ['ignore', 'pipe', 'pipe'] });
        let output = '';
        child.stdout.on('data', (chunk) => (output += chunk));
        child.stderr.on('data', (chunk) => (output += chunk));
        child.once('error', (error) => resolve({ project, code: 1, output: `${error.message}\n` }));
        child.once('exit', (code, signal) =>
          resolve({ project, code: code ?? 1, output: signal ? `${output}tsc ended by ${signal}\n` : output }),
        );
      }),
  ),
);
for (const { project, code, output } of results) {
  if (output) process.stdout.write(output);
  if (code !== 0) process.stderr.write(`typecheck: tsc -p ${project} failed (${code})\n`);
}
process.exit(results.every((r) => r.code === 0) ? 0 : 1);
