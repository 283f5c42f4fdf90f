// A computer's credentials file (computer/credentials.ts) that cannot be read: the error says why and where,
// and never quotes the file, which holds the computer's token.
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { credentialsPath, loadCredentials } from '../../computer/credentials.ts';
import { tempDir } from '../helpers/tmp.ts';

describe('loadCredentials', () => {
  it('a file that is not JSON is reported without its token', () => {
    const home = tempDir();
    writeFileSync(
      credentialsPath(home),
      '{"server": "https://agentmeter.example.com", "computerId": "c1", "token": amc_0123456789abcdef}',
      {
        mode: 0o600,
      },
    );
    expect(() => loadCredentials(home)).toThrow(`Cannot read ${credentialsPath(home)}: not JSON`);
    expect(() => loadCredentials(home)).not.toThrow(/amc_/);
  });

  it('a missing file says to register first', () => {
    expect(() => loadCredentials(tempDir())).toThrow(/not registered as a computer .* run `agentmeter computer register` first/);
  });
});
