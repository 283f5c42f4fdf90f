// Vitest global setup: the browser tests and the static-file tests need the built dashboard; build it
// once, before any test file runs, when it is missing or older than its sources.
import { buildWeb } from '../../scripts/build-web.mjs';

export default async function setup(): Promise<void> {
  await buildWeb();
}
