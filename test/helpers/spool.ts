// Writes spool files exactly as hooks/agentmeter-hook.sh does, for tests that need many of them fast.
import { linkSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

let seq = 0;

export function writeSpoolFile(agentmeterHome: string, payload: unknown, header: Record<string, string> = {}, timeMs?: number): string {
  const tmp = join(agentmeterHome, 'spool', 'tmp');
  const dest = join(agentmeterHome, 'spool', 'new');
  mkdirSync(tmp, { recursive: true });
  mkdirSync(dest, { recursive: true });
  const name = `test-${process.pid}-${Date.now()}-${++seq}`;
  const fields = { agent: 'claude', client: '', entrypoint: '', droid_exec: '', time: '', ...header };
  const head = `agentmeter-spool=1\n${Object.entries(fields)
    .map(([k, v]) => `${k}=${v}`)
    .join('\n')}\n\n`;
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  writeFileSync(join(tmp, name), head + body);
  if (timeMs !== undefined) utimesSync(join(tmp, name), timeMs / 1000, timeMs / 1000);
  // Delivered as the hook delivers: a hard link into new/, the tmp/ name left for the collector.
  linkSync(join(tmp, name), join(dest, name));
  return name;
}
