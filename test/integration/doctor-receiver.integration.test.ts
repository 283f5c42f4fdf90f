// `doctor`'s OTLP receiver check (cli/doctor/checks.ts checkReceiver) on the answers of real listeners: the
// collector's receiver, another program on its address, and nothing at all; and its verdicts, each failed
// one with the command that fixes it.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Connection, checkReceiver } from '../../cli/doctor/checks.ts';
import { probeReceiver, probeReceiverAnswer } from '../../cli/doctor/probe.ts';
import { OtlpReceiver } from '../../collector/otel/receiver.ts';
import { ensureSpool, spoolDirs } from '../../collector/spool.ts';
import { createLogger } from '../../common/logger.ts';
import { tempDir } from '../helpers/tmp.ts';

const log = createLogger({ name: 'test-doctor-receiver', level: 'silent' });
const connection: Connection = { program: '/h/.agentmeter/bin/agentmeter', serverFromEnv: false, hasKey: false, keyFromEnv: false };

let home: string;
let receiver: OtlpReceiver;
let ours: string;
let other: Server;
let otherAddress: string;
let closed: string;

beforeAll(async () => {
  home = tempDir();
  const dirs = spoolDirs(home);
  ensureSpool(dirs);
  receiver = new OtlpReceiver({ listen: '127.0.0.1:0', dirs, log });
  ours = `127.0.0.1:${await receiver.start()}`;
  // Another OTLP endpoint (say another user's collector, or a vendor's agent) answers GETs its own way.
  other = createServer((_req, res) => res.writeHead(404).end('not here'));
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherAddress = `127.0.0.1:${(other.address() as { port: number }).port}`;
  const spare = createServer();
  await new Promise<void>((resolve) => spare.listen(0, '127.0.0.1', resolve));
  closed = `127.0.0.1:${(spare.address() as { port: number }).port}`;
  await new Promise<void>((resolve) => spare.close(() => resolve()));
});
afterAll(async () => {
  await receiver.stop();
  await new Promise<void>((resolve) => other.close(() => resolve()));
});

describe("doctor's receiver check", () => {
  it('tells the collector receiver from another program and from nothing', async () => {
    expect(await probeReceiverAnswer(ours)).toEqual({ kind: 'ours' });
    expect(await probeReceiverAnswer(otherAddress)).toEqual({ kind: 'other', status: 404 });
    expect((await probeReceiverAnswer(closed)).kind).toBe('none');
  });

  it('reads the status the receiver left, and passes while it answers', async () => {
    const facts = await probeReceiver(home);
    // The test's receiver listens on port 0, so the probe asks the default address, where nothing of ours runs.
    expect(facts.status).toEqual({ requests: 0, facts: 0, refused: 0, unmapped: 0 });
    const verdict = checkReceiver({ ...facts, listen: ours, answer: { kind: 'ours' } }, true, connection);
    expect(verdict).toEqual({
      name: 'otel receiver',
      ok: true,
      detail: `listening on ${ours}: 0 requests, 0 facts spooled, 0 unmapped, 0 refused`,
    });
  });

  it('fails, with a fix, when another program holds the address or ours did not start', () => {
    const status = { requests: 3, facts: 2, refused: 0, unmapped: 1 };
    const taken = checkReceiver({ listen: otherAddress, answer: { kind: 'other', status: 404 } }, false, connection);
    expect(taken.ok).toBe(false);
    expect(taken.detail).toContain(`another program answers on ${otherAddress} (HTTP 404)`);
    expect(taken.fix).toContain('/h/.agentmeter/bin/agentmeter hooks install --otlp-endpoint');
    const lost = checkReceiver({ listen: closed, status, answer: { kind: 'none', reason: 'ECONNREFUSED' } }, true, connection);
    expect(lost).toMatchObject({ ok: false, detail: expect.stringContaining('does not answer') });
    expect(lost.fix).toContain('restart the collector');
  });

  it('passes when the collector runs without a receiver, or is not running at all', () => {
    const off = checkReceiver({ listen: closed, answer: { kind: 'none', reason: 'ECONNREFUSED' } }, true, connection);
    expect(off).toMatchObject({ ok: true, detail: expect.stringContaining('--otlp-listen off') });
    const stopped = checkReceiver({ listen: closed, answer: { kind: 'none', reason: 'ECONNREFUSED' } }, false, connection);
    expect(stopped).toMatchObject({ ok: true, detail: expect.stringContaining('not running') });
  });
});
