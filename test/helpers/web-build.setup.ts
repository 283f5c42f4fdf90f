// Vitest global setup: the browser tests and the static-file tests need the built dashboard, the install
// tests the laptop bundle (dist/laptop); build each once, before any test file runs, when it is missing
// or older than its sources.
import { buildLaptop } from '../../scripts/build-laptop.mjs';
import { buildWeb } from '../../scripts/build-web.mjs';

export default async function setup(): Promise<void> {
  await buildWeb();
  await buildLaptop();
}
