import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HookConfigCache } from '../../collector/hooks-ran.ts';
import { isSecretName, looksRandom, redactCommand } from '../../common/redact.ts';
import { tempDir } from '../helpers/tmp.ts';

interface Case {
  why: string;
  in: string;
  out: string;
}
const corpus = JSON.parse(readFileSync(new URL('../fixtures/redaction-corpus.json', import.meta.url), 'utf8')) as Case[];

describe('redactCommand on the corpus of hook command shapes', () => {
  it('holds at least 40 shapes', () => expect(corpus.length).toBeGreaterThanOrEqual(40));
  it.each(corpus.map((c) => [c.why, c.in, c.out] as const))('%s', (_why, input, output) => {
    expect(redactCommand(input)).toBe(output);
  });
  // The server masks every stored command again (older collectors shipped them in clear): a command a
  // current collector already masked must come out unchanged, or the server would rewrite every line.
  it.each(corpus.map((c) => [c.why, c.out] as const))('is idempotent: %s', (_why, masked) => {
    expect(redactCommand(masked)).toBe(masked);
  });
});

describe('redactCommand', () => {
  it('replaces the home directory with ~ before masking', () => {
    expect(redactCommand("'/home/u/.agentmeter/bin/agentmeter-hook.sh' claude", '/home/u')).toBe(
      "'~/.agentmeter/bin/agentmeter-hook.sh' claude",
    );
    expect(redactCommand('/home/uma/x.sh /home/u/y', '/home/u')).toBe('/home/uma/x.sh ~/y');
    expect(redactCommand('/home/u/bin/notify --token abc', '/home/u')).toBe('~/bin/notify --token ***');
  });

  it('never leaves a secret of the corpus in its output', () => {
    for (const secret of [
      'S3cr3tValue',
      'Sup3rS3cret',
      'hunter2',
      'ROOTPW',
      'pgpw',
      'pg-pa55word',
      'r3d1sPass',
      'letmein',
      'Tr0ub4dor',
      'wJalrXUtnFEMI',
    ]) {
      for (const c of corpus.filter((x) => x.in.includes(secret))) expect(redactCommand(c.in)).not.toContain(secret);
    }
  });

  it('cuts to 1024 characters after masking, and stays fast on long input', () => {
    const long = `curl -u admin:${'p'.repeat(5000)} ${'x '.repeat(5000)}`;
    const started = performance.now();
    const out = redactCommand(long);
    expect(out.length).toBe(1024);
    expect(out.startsWith('curl -u admin:*** x x')).toBe(true);
    // Linear: 20k characters are well under the time of a single spool file read.
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('survives unclosed quotes and odd shapes', () => {
    expect(redactCommand("curl -H 'X-Api-Key: abc")).toBe("curl -H 'X-Api-Key: ***");
    expect(redactCommand('--password')).toBe('--password');
    expect(redactCommand('')).toBe('');
  });
});

describe('isSecretName', () => {
  it('names secrets by their parts', () => {
    for (const name of [
      'API_TOKEN',
      'PGPASSWORD',
      '--client-secret',
      'apiKey',
      'AWS_SESSION_TOKEN',
      'X-Amz-Signature',
      '_authToken',
      'DB_PASS',
    ])
      expect(isSecretName(name), name).toBe(true);
    for (const name of [
      '--password-file',
      'TOKEN_URL',
      'MAX_TOKENS',
      '--no-password',
      '--bypass',
      '--author',
      'AWS_REGION',
      'MONKEY',
      'KEY_ID',
    ])
      expect(isSecretName(name), name).toBe(false);
  });
});

describe('looksRandom', () => {
  it('tells random runs from hex ids and words', () => {
    expect(looksRandom('9fK2xQ7vLm3ZpR8tW1yB4nC6hJ0dS5gE')).toBe(true);
    expect(looksRandom('3f5e1c2a9b8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f')).toBe(false); // a git SHA
    expect(looksRandom('PreToolUseValidatorForBashCommands')).toBe(false);
    expect(looksRandom('my-very-long-project-name-for-testing')).toBe(false);
  });
});

describe('HookConfigCache', () => {
  it('ships the configured commands redacted', () => {
    const home = tempDir();
    mkdirSync(join(home, '.claude'));
    const command = `curl -s -u ci:hunter2 -H 'X-Api-Key: S3cr3tValue' https://bob:PASS@ci.example.com ${home}/bin/x`;
    const hooks = { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] };
    writeFileSync(join(home, '.claude', 'settings.json'), JSON.stringify({ hooks }));
    const ran = new HookConfigCache(home).ran('claude', undefined, 'PostToolUse', 'Bash');
    expect(ran).toEqual([
      { event: 'PostToolUse', matcher: 'Bash', command: "curl -s -u ci:*** -H 'X-Api-Key: ***' https://bob:***@ci.example.com ~/bin/x" },
    ]);
  });
});
