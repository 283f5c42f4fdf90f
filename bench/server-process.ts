// A server process for the benchmarks: `agentmeter serve` (or another command) on a free port, started
// when it prints its URL, stopped with SIGTERM.
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

export const CLI = join(import.meta.dirname, '..', 'bin', 'agentmeter.js');

export async function startServer(
  db: string,
  extra: string[] = [],
  command = [CLI, 'serve', '--db', db, '--port', '0'],
): Promise<{ url: string; child: ChildProcess; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [...command, ...extra], {
    env: { ...process.env, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`server exited ${code}`)));
  });
  return {
    url,
    child,
    stop: () =>
      new Promise((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}
