// The sh scripts agentmeter hands to a shell (the hook every agent runs, install.sh piped to sh) hold ASCII
// only, comments included: some shells (yash) stop reading a script with a byte they cannot decode in the
// C or POSIX locale, and exit 2, which an agent takes as the hook blocking its prompt.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const SCRIPTS = ['hooks/agentmeter-hook.sh', 'api/install/install.sh'];

describe('sh scripts', () => {
  it.each(SCRIPTS)('%s is ASCII only', (path) => {
    const lines = readFileSync(path, 'latin1')
      .split('\n')
      .flatMap((line, i) => ([...line].some((c) => c.charCodeAt(0) > 0x7f) ? [`${path}:${i + 1}: ${line}`] : []));
    expect(lines).toEqual([]);
  });
});
