// Vitest global setup: the browser tests and the static-file tests need the built dashboard, the install
// tests the laptop bundle (dist/laptop), the start-up test the built server (dist/server); build each
// once, before any test file runs, when it is missing or older than its sources (scripts/build.mjs, the
// `prepare` script npm ci runs, has usually built them already).
import { buildAll } from '../../scripts/build.mjs';

export default async function setup(): Promise<void> {
  const { failed, lines } = await buildAll();
  if (failed) throw new Error(`the build before the tests failed:\n${lines.join('\n')}`);
}
