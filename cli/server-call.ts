// One authorized JSON call from the CLI to a running server: an unreachable server and an error answer
// become one readable line (the server's `detail`), and the answer is checked against a schema.
import type { z } from 'zod';
import { UserError } from '../common/errors.ts';

export async function callServer<T>(
  server: string,
  apiKey: string,
  method: string,
  path: string,
  schema: z.ZodType<T>,
  body?: unknown,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(new URL(path, server), {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (error) {
    throw new UserError(`cannot reach ${server}: ${(error as Error).message}`);
  }
  const json: unknown = await response.json().catch(() => ({}));
  if (!response.ok)
    throw new UserError(`server answered ${response.status}: ${(json as { detail?: string }).detail ?? response.statusText}`);
  return schema.parse(json);
}
