// The locale the dashboard formats with, and a repair of the browser's own tag before any library reads
// it. Chromium on Linux with LANG=C.UTF-8 (the POSIX locale) reports navigator.language as `en-US@posix`,
// which is not a BCP 47 tag: Intl throws `RangeError: Invalid language tag` for it, and uPlot builds its
// number formatter from navigator.language as its module loads, so the whole dashboard failed to start.
// web/src/startup.ts runs the repair before uPlot loads; this module has no effect of its own when imported.
import { DISPLAY_LOCALE } from './figures.ts';

/** The POSIX names for "no locale", which Intl would take for languages called `c` and `posix`. */
const NOT_LOCALES = new Set(['C', 'POSIX']);

/** What this module reads of the browser's navigator (no DOM types here: the unit tests run in Node). */
export interface LocaleSource {
  language: string;
  languages?: readonly string[];
}

/** Whether Intl accepts a tag. */
function isValidTag(tag: string): boolean {
  try {
    return Intl.getCanonicalLocales(tag).length === 1;
  } catch {
    return false;
  }
}

/**
 * A tag Intl accepts for what the browser reported: itself when valid; a POSIX-style name
 * (`en_US.UTF-8`, `en-US@posix`) reduced to its language and region; else DISPLAY_LOCALE.
 */
export function usableLocale(tag: string | undefined | null): string {
  if (tag && !NOT_LOCALES.has(tag.toUpperCase()) && isValidTag(tag)) return tag;
  const base = (tag ?? '').split(/[.@]/)[0]!.replaceAll('_', '-');
  return base && !NOT_LOCALES.has(base.toUpperCase()) && isValidTag(base) ? base : DISPLAY_LOCALE;
}

/**
 * Replaces navigator.language and navigator.languages on this page with usable tags when the browser's
 * are not, so that libraries reading them (uPlot) work. Returns the tag it replaced, if any.
 */
export function repairNavigatorLocale(
  nav: LocaleSource = (globalThis as unknown as { navigator: LocaleSource }).navigator,
): string | undefined {
  const reported = nav.language;
  const languages = [...(nav.languages ?? [])];
  if (usableLocale(reported) === reported && languages.every((tag) => usableLocale(tag) === tag)) return undefined;
  const language = usableLocale(reported);
  const usable = [...new Set([language, ...languages.map(usableLocale)])];
  Object.defineProperty(nav, 'language', { value: language, configurable: true });
  Object.defineProperty(nav, 'languages', { value: Object.freeze(usable), configurable: true });
  return reported;
}
