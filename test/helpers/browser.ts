// Real Chromium for the dashboard's tests, screenshots and bench: playwright-core drives it (it downloads
// no browser) and the binary is the one the @sparticuz/chromium dev dependency ships inside itself, so
// `npm install && npm test` needs nothing else.
import { type Browser, chromium } from 'playwright-core';

/**
 * Its flags are made for one page per process in a serverless function; these are left out here: one
 * process for everything breaks a second browser context, and the tests must see the browser's own web
 * security (same-origin rules, mixed content) as a user's browser applies it.
 */
const LEFT_OUT = new Set([
  '--single-process',
  '--disable-web-security',
  '--allow-running-insecure-content',
  '--disable-site-isolation-trials',
]);

/** `extraArgs`: more command-line flags, such as `--lang=en-US@posix` for the POSIX locale's tag. */
export async function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  const sparticuz = (await import('@sparticuz/chromium')).default;
  const executablePath = await sparticuz.executablePath();
  return chromium.launch({
    executablePath,
    args: [...sparticuz.args.filter((a) => !LEFT_OUT.has(a)), '--disable-background-networking', '--no-first-run', ...extraArgs],
    headless: true,
  });
}
