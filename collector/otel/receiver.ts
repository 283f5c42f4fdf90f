// The collector's OTLP/HTTP receiver (docs/metrics.md §11): POST /v1/metrics, /v1/logs and /v1/traces on a
// loopback address only (127.0.0.1:4318 unless told otherwise), for requests addressed to a loopback
// name only (DNS rebinding) and, where the system says who opened a connection (Linux, peer.ts), from its
// own user's programs only; protobuf or JSON, gzip allowed. Each request
// is decoded (otlp.ts), mapped (map.ts, agents.ts) and its facts spooled (spooled.ts) before the answer, so
// an exporter that got 200 has its data in the spool. A fact that cannot be stored (a token count of 1e12) is
// put in the spool's quarantine with its reason (one entry per request) and the answer is OTLP's partial
// success, saying how many and why. Bodies are bounded (413); a body that is not OTLP is a 400 with the reason. What is not mapped is
// counted (status file, `collect status`) and dropped.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { z } from 'zod';
import { UserError } from '../../common/errors.ts';
import type { Logger } from '../../common/logger.ts';
import { CumulativeTotals, cutText, mapSignals, quoteValue, type RefusedFact, refusalMessage } from '../../common/otel/map.ts';
import {
  decodeOtlp,
  encodingOf,
  exportResponse,
  OTLP_SIGNALS,
  OtlpDecodeError,
  type OtlpSignal,
  rpcCode,
  statusProtobuf,
} from '../../common/otel/otlp.ts';
import { ensurePrivateDir, writePrivateFile } from '../../common/private-files.ts';
import { pruneQuarantine, quarantineRecord, type SpoolDirs } from '../spool.ts';
import { answersOwner, connectionOwner, listenerOwner, listsListener } from './peer.ts';
import { spoolFacts } from './spooled.ts';
import { DEFAULT_OTLP_LISTEN, OTHER_USERS_REFUSAL, type ReceiverStatus, receiverStatusPath, UNTOLD_OWNER_REFUSAL } from './status.ts';

export { DEFAULT_OTLP_LISTEN };

/** Refused facts a request's quarantine entry lists with their reasons (the rest are counted). */
export const MAX_QUARANTINED_FACTS = 100;
/** The receiver's quarantine entries kept in bad/: past it, the oldest go (a tenth at a time). */
export const MAX_RECEIVER_QUARANTINE = 1000;
const RECEIVER_ENTRY = /^record\.otel\.[0-9a-f]{32}\.json$/;

/** The most a request body may be as sent, and once unzipped. */
export const MAX_OTLP_BODY = 4 * 1024 * 1024;
export const MAX_OTLP_UNZIPPED = 16 * 1024 * 1024;

/** Pure: "host:port" → where to listen; only a loopback address (the receiver takes no key). */
export function parseListen(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value.trim());
  const host = m ? (m[1] ?? m[2])! : '';
  const port = m ? Number(m[3]) : Number.NaN;
  if (!m || port > 65_535) throw new UserError(`--otlp-listen "${value}" is not host:port (for instance ${DEFAULT_OTLP_LISTEN})`);
  const loopback = host === 'localhost' || (isIP(host) === 4 && host.startsWith('127.')) || host === '::1';
  if (!loopback)
    throw new UserError(
      `--otlp-listen "${value}": the OTLP receiver takes no key, so it listens on a loopback address only (127.0.0.1, ::1 or localhost)`,
    );
  return { host, port };
}

/**
 * Pure: is a request's Host header a loopback name (localhost or a name under .localhost, 127/8, [::1],
 * with or without a port)? The receiver takes no key, and a web page whose name an attacker's DNS points
 * at 127.0.0.1 (DNS rebinding) reaches it as its own origin: only the Host it sends tells it apart.
 */
export function loopbackHost(header: string | undefined): boolean {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::\d{1,5})?$/.exec(header ?? '');
  if (!m) return false;
  if (m[1] !== undefined) return m[1] === '::1';
  const name = m[2]!.toLowerCase().replace(/\.$/, '');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/** What the receiver has seen since it started: in its status file and `agentmeter collect status`. */
const totalsPath = (agentmeterHome: string) => join(agentmeterHome, 'collector', 'otlp-cumulative.json');

const CumulativeFile = z.array(z.tuple([z.string(), z.object({ startMs: z.number(), value: z.number(), timeMs: z.number().optional() })]));

function loadTotals(agentmeterHome: string): CumulativeTotals {
  try {
    const parsed = CumulativeFile.safeParse(JSON.parse(readFileSync(totalsPath(agentmeterHome), 'utf8')));
    return new CumulativeTotals(parsed.success ? parsed.data : []);
  } catch {
    return new CumulativeTotals();
  }
}

export interface ReceiverOptions {
  listen: string;
  dirs: SpoolDirs;
  log: Logger;
  /** Called after facts were spooled (the collector drains sooner). */
  onSpooled?: () => void;
  now?: () => number;
  /** Reads one of the kernel's socket tables (/proc/net/tcp, tcp6): tests give one that fails. */
  readSocketTable?: (path: string) => string;
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(request.headers['content-length']);
    if (declared > MAX_OTLP_BODY) {
      reject(new HttpProblem(413, `body over ${MAX_OTLP_BODY} bytes`));
      request.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      if (size > MAX_OTLP_BODY) return;
      size += chunk.length;
      if (size > MAX_OTLP_BODY) {
        // The rest is read and dropped (Node does it once the 413 is sent): closing the connection now
        // would reach the exporter as a reset, a network error it retries with the same body.
        chunks.length = 0;
        reject(new HttpProblem(413, `body over ${MAX_OTLP_BODY} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function unzip(body: Buffer, encoding: string | undefined): Buffer {
  const coding = (encoding ?? 'identity').trim().toLowerCase();
  if (coding === 'identity' || coding === '') return body;
  if (coding !== 'gzip') throw new HttpProblem(415, `Content-Encoding ${quoteValue(coding)} is not supported (gzip or none)`);
  try {
    return gunzipSync(body, { maxOutputLength: MAX_OTLP_UNZIPPED });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE')
      throw new HttpProblem(413, `body over ${MAX_OTLP_UNZIPPED} bytes unzipped`);
    throw new HttpProblem(400, 'body is not gzip');
  }
}

/** The receiver: start() listens, stop() closes; handle() is the request path (tests and the bench call it). */
export class OtlpReceiver {
  private server: Server | undefined;
  private readonly totals: CumulativeTotals;
  private readonly status: ReceiverStatus;
  private readonly unmappedNames = new Map<string, number>();
  private saveTimer: NodeJS.Timeout | undefined;
  /** The receiver's entries in bad/, as last counted (undefined until its first refusal). */
  private quarantined: number | undefined;
  /** Who opened each connection (connectionOwner), read once when it is accepted. */
  private readonly owners = new WeakMap<Socket, number | null>();
  /** This process's user, whose agents alone the receiver answers; undefined where there are no uids. */
  private readonly uid = process.getuid?.();
  /** Whether the system lists the receiver's own socket (listsListener), so says who opens connections. */
  private ownersListed = false;

  constructor(private readonly options: ReceiverOptions) {
    parseListen(options.listen);
    this.totals = loadTotals(options.dirs.home);
    this.status = {
      listen: options.listen,
      startedAt: Date.now(),
      requests: 0,
      refused: 0,
      rejected: 0,
      facts: 0,
      ignored: 0,
      unmapped: 0,
      unmappedNames: [],
    };
  }

  /** Listens; resolves with the port (0 in --otlp-listen picks a free one). */
  async start(): Promise<number> {
    const { host, port } = parseListen(this.options.listen);
    ensurePrivateDir(join(this.options.dirs.home, 'collector'));
    const server = createServer((request, response) => {
      this.serve(request, response).catch((error: unknown) => {
        this.options.log.error({ error: String(error) }, 'OTLP request failed');
        if (response.headersSent) return;
        if (encodingOf(request.headers['content-type']) === 'protobuf')
          this.answer(response, 500, 'application/x-protobuf', statusProtobuf(500, 'internal error'));
        else this.answer(response, 500, 'application/json', JSON.stringify({ code: rpcCode(500), message: 'internal error' }));
      });
    });
    // Read before the first byte of the connection is: the client's socket is listed while it is open.
    server.on('connection', (socket: Socket) => {
      if (!this.ownersListed) return;
      this.owners.set(socket, this.ownerOf(socket));
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => {
        const holder =
          error.code === 'EADDRINUSE' && this.uid !== undefined ? listenerOwner(port, this.options.readSocketTable, host) : undefined;
        if (holder === undefined || holder === this.uid) reject(error);
        else
          reject(
            new Error(
              `${host}:${port} is held by another user (uid ${holder}), whose receiver answers only their own agents: give each user of this machine a port of their own (--otlp-listen here, hooks install --otlp-endpoint for the agents)`,
            ),
          );
      });
      server.listen(port, host, () => resolve());
    });
    const address = server.address();
    const bound = typeof address === 'object' && address ? address.port : port;
    this.ownersListed =
      this.uid !== undefined &&
      typeof address === 'object' &&
      address !== null &&
      listsListener({ address: address.address, port: bound }, this.options.readSocketTable);
    this.options.log.info({ listen: `${host}:${bound}`, ownersChecked: this.ownersListed }, 'OTLP receiver listening');
    this.saveStatus();
    return bound;
  }

  /**
   * Who opened a connection, where the system lists the receiver's socket: null when the tables do not say
   * (unreadable, as with no file descriptor left, or without either end), read twice, since a table that
   * changes while it is read can miss a socket.
   */
  private ownerOf(socket: Socket): number | null {
    if (socket.remoteAddress === undefined || socket.localAddress === undefined) return null;
    const client = { address: socket.remoteAddress, port: socket.remotePort! };
    const server = { address: socket.localAddress, port: socket.localPort! };
    for (let attempt = 0; attempt < 2; attempt++) {
      const owner = connectionOwner(client, server, this.options.readSocketTable);
      if (typeof owner === 'number') return owner;
    }
    return null;
  }

  async stop(): Promise<void> {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveNow();
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private answer(response: ServerResponse, status: number, type: string, body: string | Buffer): void {
    response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
    response.end(body);
  }

  private async serve(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '').split('?')[0]!;
    const signal = OTLP_SIGNALS.find((s) => path === `/v1/${s}`);
    const encoding = encodingOf(request.headers['content-type']);
    try {
      if (!loopbackHost(request.headers.host))
        throw new HttpProblem(403, 'the OTLP receiver answers only requests addressed to a loopback name (localhost, 127.0.0.1 or [::1])');
      const owner = this.owners.get(request.socket);
      if (owner !== undefined && !answersOwner(owner, this.uid))
        throw new HttpProblem(
          403,
          owner === null
            ? `${UNTOLD_OWNER_REFUSAL} (the system's socket tables list no owner for it), and answers only its own user's agents (uid ${this.uid})`
            : `${OTHER_USERS_REFUSAL} (uid ${this.uid}); this connection is uid ${owner}'s: give each user of this machine a port of their own (agentmeter collect --otlp-listen, hooks install --otlp-endpoint)`,
        );
      if (!signal) throw new HttpProblem(404, 'the OTLP receiver serves POST /v1/metrics, /v1/logs and /v1/traces');
      if (request.method !== 'POST') throw new HttpProblem(405, 'OTLP requests are POST');
      if (!encoding) throw new HttpProblem(415, 'Content-Type must be application/x-protobuf or application/json');
      const body = unzip(await readBody(request), request.headers['content-encoding'] as string | undefined);
      const { refused, reason } = this.handle(signal, encoding, body);
      const answer = exportResponse(signal, encoding, refused, reason);
      this.answer(response, 200, answer.type, answer.body);
    } catch (error) {
      const problem =
        error instanceof HttpProblem ? error : error instanceof OtlpDecodeError ? new HttpProblem(400, error.message) : undefined;
      if (!problem) throw error;
      this.status.refused++;
      this.options.log.warn({ path, status: problem.status, reason: problem.message }, 'OTLP request refused');
      // A google.rpc.Status, in the request's encoding as OTLP/HTTP says (JSON when it has none we know); its
      // code is a google.rpc.Code, the HTTP status is the response's.
      if (encoding === 'protobuf')
        this.answer(response, problem.status, 'application/x-protobuf', statusProtobuf(problem.status, problem.message));
      else
        this.answer(
          response,
          problem.status,
          'application/json',
          JSON.stringify({ code: rpcCode(problem.status), message: problem.message }),
        );
    }
  }

  /**
   * One request body → its facts in the spool, and those refused in its quarantine (`refused`, `reason`: the
   * answer's partial success). Throws OtlpDecodeError for a body that is not OTLP.
   */
  handle(
    signal: OtlpSignal,
    encoding: 'protobuf' | 'json',
    body: Uint8Array,
  ): { facts: number; unmapped: number; refused: number; reason: string } {
    const now = (this.options.now ?? Date.now)();
    const decoded = decodeOtlp(signal, encoding, body);
    const mapped = mapSignals(decoded.signals, this.totals, now);
    const request = createHash('sha256').update(signal).update('\0').update(body).digest('hex').slice(0, 32);
    for (const [name, n] of decoded.unreadable) mapped.unmapped.set(name, (mapped.unmapped.get(name) ?? 0) + n);
    let facts = 0;
    const reason = mapped.refused.length ? refusalMessage(mapped.refused) : '';
    try {
      if (reason) this.quarantine(signal, request, mapped.refused, reason);
      for (const [agent, list] of mapped.facts) {
        spoolFacts(this.options.dirs, agent, list, now, request);
        facts += list.length;
      }
    } catch (error) {
      // Not kept, so not counted: the agent's next export of these running totals counts them.
      this.totals.restore(mapped.undo);
      throw error;
    }
    // The cumulative totals these facts were counted from are saved before the answer, not with the status
    // a second later: a receiver killed in between would count the next export from the older totals, and
    // the decisions it spooled would be counted again.
    if (this.totals.changed) this.saveTotals();
    let unmapped = 0;
    for (const [full, n] of mapped.unmapped) {
      unmapped += n;
      // A name is whatever the sender wrote (megabytes, if it likes): the status file keeps the top 20.
      const name = cutText(full);
      if (this.unmappedNames.size < 1000 || this.unmappedNames.has(name))
        this.unmappedNames.set(name, (this.unmappedNames.get(name) ?? 0) + n);
    }
    const ignored = [...mapped.ignored.values()].reduce((a, b) => a + b, 0);
    this.status.requests++;
    this.status.facts += facts;
    this.status.unmapped += unmapped;
    this.status.ignored += ignored;
    this.status.rejected += mapped.refused.length;
    if (reason) this.options.log.warn({ signal, refused: mapped.refused.length, reason }, 'OTLP facts refused, quarantined');
    this.options.log.debug({ signal, facts, unmapped, ignored }, 'OTLP request mapped');
    if (facts) this.options.onSpooled?.();
    this.saveSoon();
    return { facts, unmapped, refused: mapped.refused.length, reason };
  }

  /**
   * A request's refused facts as one quarantine entry, named by the request so that an exporter's retry of
   * the same bytes rewrites it: the first MAX_QUARANTINED_FACTS facts, each with its reason, and how many
   * more there were. Two files per request however many facts it refused, written before the answer.
   */
  private quarantine(signal: OtlpSignal, request: string, refused: readonly RefusedFact[], reason: string): void {
    const facts = refused.slice(0, MAX_QUARANTINED_FACTS).map((r) => ({ agent: r.agent, ...r.fact, reason: r.reason }));
    const entry = { signal, refused: refused.length, notListed: refused.length - facts.length, facts };
    const name = `record.otel.${request}.json`;
    // Counted without listing bad/ on every request (a listing of 2 000 names costs milliseconds): listed
    // once, then when the count reaches the bound (the user may have removed entries since).
    this.quarantined ??= this.receiverEntries().length;
    if (!existsSync(join(this.options.dirs.bad, name))) this.quarantined++;
    quarantineRecord(this.options.dirs, `otel.${request}`, entry, reason);
    if (this.quarantined > MAX_RECEIVER_QUARANTINE) this.pruneQuarantine();
  }

  private receiverEntries(): string[] {
    try {
      return readdirSync(this.options.dirs.bad).filter((n) => RECEIVER_ENTRY.test(n));
    } catch {
      return [];
    }
  }

  /**
   * Past MAX_RECEIVER_QUARANTINE receiver entries in bad/, removes the oldest down to 90% (the entry just
   * written is the newest), and counts what is left (the user may have removed entries since).
   */
  private pruneQuarantine(): void {
    const { removed, left } = pruneQuarantine(this.options.dirs, MAX_RECEIVER_QUARANTINE, (name) => RECEIVER_ENTRY.test(name));
    this.quarantined = left;
    if (removed) this.options.log.info({ removed, kept: MAX_RECEIVER_QUARANTINE }, 'OTLP quarantine pruned, oldest entries removed');
  }

  snapshot(): ReceiverStatus {
    return {
      ...this.status,
      unmappedNames: [...this.unmappedNames.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 20),
    };
  }

  /** The status file and the cumulative totals are written at most once a second. */
  private saveSoon(): void {
    if (this.saveTimer) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined;
      this.saveNow();
    }, 1000);
    this.saveTimer.unref();
  }

  private saveNow(): void {
    try {
      this.saveStatus();
      if (this.totals.changed) this.saveTotals();
    } catch (error) {
      this.options.log.warn({ error: (error as Error).message }, 'OTLP receiver status not saved');
    }
  }

  private saveTotals(): void {
    const path = totalsPath(this.options.dirs.home);
    ensurePrivateDir(dirname(path));
    writePrivateFile(path, JSON.stringify(this.totals.entries()));
    this.totals.changed = false;
  }

  private saveStatus(): void {
    writePrivateFile(receiverStatusPath(this.options.dirs.home), JSON.stringify(this.snapshot()));
  }
}
