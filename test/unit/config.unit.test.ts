import { userInfo } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseLifetime } from '../../common/config.ts';
import { userHome } from '../../common/user-home.ts';

describe('parseLifetime (serve --jwt-max-lifetime, AGENTMETER_JWT_MAX_LIFETIME)', () => {
  it('reads a whole number and a unit, from 1 minute to 30 days', () => {
    expect(parseLifetime('24h')).toBe(86_400);
    expect(parseLifetime('90m')).toBe(5400);
    expect(parseLifetime('3600s')).toBe(3600);
    expect(parseLifetime('30d')).toBe(30 * 86_400);
    for (const bad of ['', '24', 'h', '1.5h', '-1h', '59s', '31d', '24 hours', '0m']) expect(parseLifetime(bad), bad).toBeUndefined();
  });

  it('refuses a bad environment value at start', () => {
    expect(() => loadConfig({ AGENTMETER_JWT_MAX_LIFETIME: 'forever' })).toThrow(/AGENTMETER_JWT_MAX_LIFETIME/);
    expect(loadConfig({ AGENTMETER_JWT_MAX_LIFETIME: '12h' }).env.AGENTMETER_JWT_MAX_LIFETIME).toBe('12h');
  });
});

describe('userHome', () => {
  it("is HOME when set, else the process's home, else the password database's: never an empty path", () => {
    expect(userHome('/home/ana', '/root')).toBe('/home/ana');
    expect(userHome(undefined, '/home/bo')).toBe('/home/bo');
    // HOME="" (Node's homedir() gives it as it is): the spool would be a relative .agentmeter.
    expect(userHome(undefined, '')).toBe(userInfo().homedir);
    expect(userHome('', '')).toBe(userInfo().homedir);
  });
});
