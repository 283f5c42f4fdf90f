// Module hooks of module-trace.mjs; they run on the loader thread, so they write the file themselves.
import { appendFileSync } from 'node:fs';

let out = '';

export function initialize(data) {
  out = data.out;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(out, `${resolved.url}\n`);
  return resolved;
}
