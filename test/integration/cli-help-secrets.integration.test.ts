// `--help` is pasted into issues, chats and CI logs: it never prints an API key, whether it comes from the
// environment or from $AGENTMETER_HOME/collector.env, though the key stays the option's default.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/processes.ts';
import { tempDir } from '../helpers/tmp.ts';

const FROM_ENV = 'am_SECRETKEYFROMENV123';
const FROM_FILE = 'am_SECRETKEYFROMFILE456';

describe('--help', () => {
  it('shows that a key is set, never the key', () => {
    const home = tempDir();
    const am = join(home, '.agentmeter');
    mkdirSync(am, { mode: 0o700 });
    writeFileSync(join(am, 'collector.env'), `AGENTMETER_SERVER=http://127.0.0.1:9\nAGENTMETER_API_KEY=${FROM_FILE}\n`, { mode: 0o600 });
    const commands = [['users', 'list'], ['keys', 'list'], ['batch'], ['pricing', 'list'], ['readiness', 'evaluate'], ['alerts', 'list']];
    for (const command of commands) {
      const help = runCli([...command, '--help'], { HOME: home, AGENTMETER_HOME: am, AGENTMETER_API_KEY: FROM_ENV });
      expect(help.status, command.join(' ')).toBe(0);
      expect(help.stdout, command.join(' ')).not.toContain(FROM_ENV);
      expect(help.stdout, command.join(' ')).toContain('set, not shown');
    }
    for (const command of [['collect'], ['doctor'], ['uninstall']]) {
      const help = runCli([...command, '--help'], { HOME: home, AGENTMETER_HOME: am });
      expect(help.status, command.join(' ')).toBe(0);
      expect(help.stdout, command.join(' ')).not.toContain(FROM_FILE);
    }
  });
});
