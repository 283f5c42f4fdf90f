// Who opened a loopback TCP connection, on Linux. The OTLP receiver takes no key, and on a machine several
// people use, every user's agents export to the same 127.0.0.1:4318: the receiver of whoever listens there
// would spool the others' telemetry and ship it under its own user's key. /proc/net/tcp and tcp6 list each
// socket of the network namespace with the uid that owns it; a connection's client socket is the one whose
// local address is the connection's remote one and whose remote address is the receiver's.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { endianness } from 'node:os';

export interface Endpoint {
  address: string;
  port: number;
}

export interface ProcSocket {
  local: Endpoint;
  remote: Endpoint;
  /** The kernel's state code: 0A is a listening socket. */
  state: string;
  uid: number;
  /**
   * The socket's inode: 0 when no process holds it (its program closed it and the kernel finishes the
   * connection alone); its uid then says nothing sure, 0 once it waits out FIN_WAIT2 or TIME_WAIT.
   */
  inode: number;
}

const TABLES = ['/proc/net/tcp', '/proc/net/tcp6'] as const;
const LISTENING = '0A';

/**
 * Pure: the four bytes of a 32-bit word as /proc prints it (%08X of the word as it sits in memory): on a
 * little-endian machine 127.0.0.1 is 0100007F.
 */
function wordBytes(hex: string, littleEndian: boolean): number[] {
  const n = Number.parseInt(hex, 16);
  const bytes = [n >>> 24, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
  return littleEndian ? bytes.reverse() : bytes;
}

/** Pure: /proc's address (8 hex digits for IPv4, 32 for IPv6) as Node writes a socket's address. */
export function procAddress(hex: string, littleEndian: boolean): string {
  if (hex.length === 8) return wordBytes(hex, littleEndian).join('.');
  const bytes = [0, 8, 16, 24].flatMap((at) => wordBytes(hex.slice(at, at + 8), littleEndian));
  // An IPv4 address on an IPv6 socket (::ffff:a.b.c.d), as Node reports it.
  if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff) return `::ffff:${bytes.slice(12).join('.')}`;
  const groups = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  // The longest run of zero groups is written "::" (RFC 5952), so that ::1 reads as Node writes it.
  let best = { at: -1, length: 0 };
  for (let i = 0; i < 8; ) {
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > best.length && j - i > 1) best = { at: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  if (best.at < 0) return groups.join(':');
  return `${groups.slice(0, best.at).join(':')}::${groups.slice(best.at + best.length).join(':')}`;
}

/** Pure: the sockets of one /proc/net/tcp or tcp6 table (its header line and any malformed line skipped). */
export function parseProcNet(text: string, littleEndian = endianness() === 'LE'): ProcSocket[] {
  const sockets: ProcSocket[] = [];
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    const local = /^([0-9A-F]{8}|[0-9A-F]{32}):([0-9A-F]{4})$/i.exec(fields[1] ?? '');
    const remote = /^([0-9A-F]{8}|[0-9A-F]{32}):([0-9A-F]{4})$/i.exec(fields[2] ?? '');
    const uid = Number(fields[7]);
    const inode = Number(fields[9]);
    if (!local || !remote || !/^[0-9A-F]{2}$/i.test(fields[3] ?? '') || !Number.isInteger(uid) || !Number.isInteger(inode)) continue;
    sockets.push({
      local: { address: procAddress(local[1]!, littleEndian), port: Number.parseInt(local[2]!, 16) },
      remote: { address: procAddress(remote[1]!, littleEndian), port: Number.parseInt(remote[2]!, 16) },
      state: fields[3]!.toUpperCase(),
      uid,
      inode,
    });
  }
  return sockets;
}

/**
 * Pure: an address as an IPv4 socket has it. A program whose sockets are all IPv6 (Java, .NET) reaches
 * 127.0.0.1 from ::ffff:127.0.0.1, listed in tcp6, while the receiver's IPv4 socket names it 127.0.0.1.
 */
const unmapped = (address: string) => (/^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address);

const same = (a: Endpoint, b: Endpoint) => a.port === b.port && unmapped(a.address) === unmapped(b.address);

/**
 * The sockets of the tables read so far, after each one that could be read (none where no table can be:
 * not Linux). Reading a table costs milliseconds (the kernel walks its whole hash), so a caller that has
 * its answer stops early.
 */
function* socketsSoFar(read: (path: string) => string): Generator<readonly ProcSocket[]> {
  const sockets: ProcSocket[] = [];
  for (const table of TABLES) {
    try {
      sockets.push(...parseProcNet(read(table)));
    } catch {
      // No IPv6 on this machine, or no /proc at all.
      continue;
    }
    yield sockets;
  }
}

/** Every socket of the namespace, or undefined where the tables cannot be read (not Linux). */
function procSockets(read: (path: string) => string): readonly ProcSocket[] | undefined {
  let all: readonly ProcSocket[] | undefined;
  for (const sockets of socketsSoFar(read)) all = sockets;
  return all;
}

const readTable = (path: string) => readFileSync(path, 'latin1');

/**
 * Whether the tables list a socket listening at `endpoint` (the receiver's own, once it listens): where
 * they do, the system says who opens each connection, and one whose ends they do not list is one the
 * receiver cannot tell, not one to let through.
 */
export function listsListener(endpoint: Endpoint, read: (path: string) => string = readTable): boolean {
  return procSockets(read)?.some((s) => s.state === LISTENING && same(s.local, endpoint)) ?? false;
}

/**
 * The uid that owns the client end of a connection the receiver accepted (client: the connection's remote
 * address, server: its local one). Undefined where the system does not say: no /proc, or tables that do
 * not list the receiver's own end of the connection (WSL 1's are empty). Null where they list that end
 * but not the client's, or list it held by no process (its program closed it before the receiver read the
 * tables, and the kernel may list it as root's, whoever opened it).
 */
export function connectionOwner(client: Endpoint, server: Endpoint, read: (path: string) => string = readTable): number | undefined | null {
  // An IPv4 connection has both ends in the first table.
  let owner: number | undefined | null;
  for (const sockets of socketsSoFar(read)) {
    owner = ownerAmong(sockets, client, server);
    if (typeof owner === 'number') return owner;
  }
  return owner;
}

/** Pure: connectionOwner's answer among these sockets. */
function ownerAmong(sockets: readonly ProcSocket[], client: Endpoint, server: Endpoint): number | undefined | null {
  if (!sockets.some((s) => same(s.local, server) && same(s.remote, client))) return undefined;
  // A client end no process holds any more may be listed as uid 0: it says nothing of who opened it.
  return sockets.find((s) => same(s.local, client) && same(s.remote, server) && s.inode !== 0)?.uid ?? null;
}

/**
 * Pure: whether a socket listening at `listening` keeps another from listening at `host` on its port: the
 * same address, or every address (0.0.0.0 for IPv4; :: for both, since the tables do not say whether it
 * takes IPv6 only). A host given by name (localhost) may be any loopback address.
 */
export function keepsFrom(listening: string, host: string): boolean {
  const address = unmapped(listening);
  const ipv4 = isIP(host) === 4;
  if (address === '::' || (address === '0.0.0.0' && isIP(host) !== 6)) return true;
  if (isIP(host) === 0) return address.startsWith('127.') || address === '::1';
  return address === (ipv4 ? host : unmapped(host));
}

/**
 * The uid of a socket listening on `port` where it keeps the receiver from `host` (keepsFrom), if the
 * system says: who holds a port the receiver could not take.
 */
export function listenerOwner(port: number, read: (path: string) => string = readTable, host = 'localhost'): number | undefined {
  return procSockets(read)?.find((s) => s.state === LISTENING && s.local.port === port && keepsFrom(s.local.address, host))?.uid;
}

/**
 * Pure: whether the receiver of user `uid` answers a connection `owner` opened (connectionOwner's answer):
 * its own user's, or root's. Root could act as that user anyway (read their key, write their spool), and
 * agents do run as root: `sudo`, a container on the host's network.
 */
export const answersOwner = (owner: number | null, uid: number | undefined): boolean => owner !== null && (owner === uid || owner === 0);
