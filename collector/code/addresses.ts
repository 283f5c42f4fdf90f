// The user's addresses as the server knows them (GET /api/v0/me/addresses: their e-mail and aliases): the
// commits of these authors are the user's (docs/metrics.md §5 "Landed"). Asked at most every REFRESH_MS;
// when the server cannot answer, the addresses known before stay.
import { z } from 'zod';

export const MY_ADDRESSES_PATH = '/api/v0/me/addresses';
/** How often the addresses are asked for at most. */
export const ADDRESSES_REFRESH_MS = 10 * 60 * 1000;

const Answer = z.object({ data: z.object({ addresses: z.array(z.string().max(320)).max(1000) }) });

/** The caller's addresses, or undefined when the server cannot be asked (or answers otherwise). */
export async function fetchAddresses(server: string, apiKey: string, timeoutMs = 10_000): Promise<string[] | undefined> {
  try {
    const response = await fetch(new URL(MY_ADDRESSES_PATH, server), {
      headers: { authorization: `Bearer ${apiKey}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!response.ok) return undefined;
    return Answer.parse(await response.json()).data.addresses;
  } catch {
    return undefined;
  }
}
