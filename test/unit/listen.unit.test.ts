// The port `serve` and `demo` hold while their database opens (cli/listen.ts).
import { connect, createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { reservePort } from '../../cli/listen.ts';
import { UserError } from '../../common/errors.ts';

describe('reservePort', () => {
  it('a client connecting meanwhile is turned away at once, and letting go of the port does not wait for it', async () => {
    const held = await reservePort('127.0.0.1', 0);
    const client = connect(held.port, '127.0.0.1');
    client.on('error', () => undefined); // a reset is what a turned-away client sees
    await new Promise((resolve) => client.once('close', resolve));
    await held.release();
    // The port is free again for the real server.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(held.port, '127.0.0.1', resolve));
    await new Promise((resolve) => server.close(resolve));
  });

  it('a port in use is a UserError in words a person can act on', async () => {
    const held = await reservePort('127.0.0.1', 0);
    try {
      const error = await reservePort('127.0.0.1', held.port).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UserError);
      expect((error as Error).message).toBe(
        `port ${held.port} on 127.0.0.1 is in use (another agentmeter server, or another program): stop it or choose another --port`,
      );
    } finally {
      await held.release();
    }
  });
});
