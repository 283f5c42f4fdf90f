// Destinations sealed under the database's key (api/budgets/sealed-destinations.ts): sealed, only the
// origin is left in clear and each sealing differs; opened, they are as given; without the key file, or
// under another key, opening fails with a reason that names the key file and what to do, never the URL.
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DestinationSeal, storedDestinationView } from '../../api/budgets/sealed-destinations.ts';
import { isSealed, keyFileFor, seal as sealWith } from '../../common/sealing.ts';
import { tempDir } from '../helpers/tmp.ts';

const DISCORD = {
  type: 'webhook' as const,
  url: 'https://discord.com/api/webhooks/123/tOkEn-0123456789',
  secret: 'whsec-0123456789abcdef',
};
const SLACK = { type: 'slack' as const, url: 'https://hooks.slack.com/services/T0/B0/sEcReT0123' };

describe('DestinationSeal', () => {
  it('keeps only the origin in clear, and opens what it sealed', () => {
    const seal = new DestinationSeal(join(tempDir(), 'a.duckdb'));
    const sealed = seal.seal([DISCORD, SLACK]);
    const text = JSON.stringify(sealed);
    for (const clear of ['tOkEn-0123456789', 'whsec-0123456789abcdef', 'sEcReT0123', '/api/webhooks', '/services'])
      expect(text).not.toContain(clear);
    expect(sealed.map((d) => d.origin)).toEqual(['https://discord.com', 'https://hooks.slack.com']);
    expect(sealed.map(storedDestinationView)).toEqual([
      { type: 'webhook', url: 'https://discord.com/…', secret: 'set' },
      { type: 'slack', url: 'https://hooks.slack.com/…' },
    ]);
    expect(seal.seal([DISCORD])[0]!.url).not.toBe(sealed[0]!.url);
    expect(seal.open(sealed)).toEqual([DISCORD, SLACK]);
    expect(seal.seal([])).toEqual([]);
  });

  it('an in-memory database seals under a key of the process, with no file', () => {
    const seal = new DestinationSeal(':memory:');
    expect(seal.open(seal.seal([SLACK]))).toEqual([SLACK]);
  });

  it('without its key file, or under another key, opening fails saying so, without the URL', () => {
    const path = join(tempDir(), 'b.duckdb');
    const seal = new DestinationSeal(path);
    const sealed = seal.seal([DISCORD]);
    rmSync(keyFileFor(path));
    expect(() => seal.open(sealed)).toThrow(/key file beside the database \(\.oidc-key\) is missing: set the alert destinations again/);
    // A delivery's error is shown to managers: it never names the server's paths.
    expect(() => seal.open(sealed)).not.toThrow(new RegExp(path.replaceAll('.', '\\.')));
    writeFileSync(keyFileFor(path), Buffer.alloc(32, 7), { mode: 0o600 });
    expect(() => seal.openDelivery({ url: sealed[0]!.url, secret: null })).toThrow(/another key sealed it/);
    const warned: string[] = [];
    expect(seal.openToReplace(sealed, { warn: (o) => warned.push(JSON.stringify(o)) })).toEqual({
      kept: [],
      unopened: expect.stringMatching(/another key sealed it/),
    });
    expect(warned.join('')).toContain('another key');
    expect(warned.join('')).not.toContain('discord.com');
  });

  it('tells a sealed value from a URL or secret in clear', () => {
    const sealed = sealWith(Buffer.alloc(32, 1), SLACK.url);
    expect(isSealed(sealed)).toBe(true);
    expect(isSealed(sealWith(Buffer.alloc(32, 1), ''))).toBe(true);
    for (const clear of [SLACK.url, DISCORD.secret, 'v1.abc.def.ghi', `${sealed}/`, `x${sealed}`]) expect(isSealed(clear)).toBe(false);
  });
});
