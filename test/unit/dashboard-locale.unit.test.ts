// The dashboard's locale repair (web/src/locale.ts): a tag Intl accepts for whatever the browser reports.
import { describe, expect, it } from 'vitest';
import { type LocaleSource, repairNavigatorLocale, usableLocale } from '../../web/src/locale.ts';

describe('usableLocale', () => {
  it('keeps a valid tag, reduces POSIX-style names to language and region, else en-US', () => {
    expect(usableLocale('de-CH')).toBe('de-CH');
    expect(usableLocale('en-US@posix')).toBe('en-US');
    expect(usableLocale('fr_FR.UTF-8')).toBe('fr-FR');
    expect(usableLocale('C.UTF-8')).toBe('en-US');
    expect(usableLocale('POSIX')).toBe('en-US');
    expect(usableLocale('')).toBe('en-US');
    expect(usableLocale(undefined)).toBe('en-US');
  });

  it('repairs a navigator whose tags Intl refuses, and leaves a valid one alone', () => {
    const posix: LocaleSource = { language: 'en-US@posix', languages: ['en-US@posix', 'de'] };
    expect(repairNavigatorLocale(posix)).toBe('en-US@posix');
    expect([posix.language, [...(posix.languages ?? [])]]).toEqual(['en-US', ['en-US', 'de']]);
    expect(() => new Intl.NumberFormat(posix.language)).not.toThrow();
    const fine: LocaleSource = { language: 'pt-BR', languages: ['pt-BR'] };
    expect(repairNavigatorLocale(fine)).toBeUndefined();
    expect(fine.language).toBe('pt-BR');
  });
});
