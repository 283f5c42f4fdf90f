// Alert destinations on the wire: a redirect is never followed, and the request goes to the address that
// was checked.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, resolveDestination } from '../../api/budgets/destination.ts';
import { type Delivery, webhookReceiverForTests } from '../helpers/webhook-receiver.ts';

const delivered: Delivery[] = [];
const target = webhookReceiverForTests(delivered);
let redirector: Server;
let redirectUrl: string;

beforeAll(async () => {
  const targetUrl = `${target.url}/in`;
  redirector = createServer((req, res) => {
    req.resume();
    res.writeHead(307, { location: targetUrl }).end();
  });
  await new Promise<void>((r) => redirector.listen(0, '127.0.0.1', r));
  redirectUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/out`;
});
afterAll(async () => {
  await new Promise((r) => redirector.close(r));
});

describe('alert destinations', () => {
  it('count a redirect as a failure and never follow it', async () => {
    const result = await postJson(await resolveDestination(redirectUrl, true), '{}', {});
    expect(result).toEqual({ ok: false, error: 'answered 307 (a redirect, not followed)' });
    expect(delivered).toHaveLength(0);
  });

  it('connect to the checked address, with the URL host in the Host header', async () => {
    const port = new URL(target.url).port;
    const to = await resolveDestination(`http://localhost:${port}/in`, true);
    expect(['127.0.0.1', '::1']).toContain(to.address);
    // Pinned to 127.0.0.1 whatever "localhost" resolves to next.
    const result = await postJson({ ...to, address: '127.0.0.1', family: 4 }, '{}', {});
    expect(result).toEqual({ ok: true });
    expect(delivered.at(-1)!.headers.host).toBe(`localhost:${port}`);
    await expect(resolveDestination(`http://localhost:${port}/in`, false)).rejects.toThrow(/loopback/);
  });
});
