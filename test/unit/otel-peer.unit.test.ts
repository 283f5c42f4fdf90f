// Who opened a loopback connection, read from /proc/net/tcp and tcp6 (collector/otel/peer.ts): lines as
// the kernel prints them, addresses worked out by hand.
import { describe, expect, it } from 'vitest';
import { answersOwner, connectionOwner, listenerOwner, parseProcNet, procAddress } from '../../collector/otel/peer.ts';

const HEADER =
  '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode                                                     ';

/** A line of /proc/net/tcp: slot, local, remote, state, uid and inode, the rest as the kernel pads it. */
const line = (slot: number, local: string, remote: string, state: string, uid: number, inode = 40_000 + slot) =>
  `   ${slot}: ${local} ${remote} ${state} 00000000:00000000 00:00000000 00000000  ${uid}        0 ${inode} 1 0000000000000000 20 4 30 10 -1`;

// 127.0.0.1 is the word 0x7F000001, whose bytes a little-endian machine keeps as 01 00 00 7F; 4318 is 0x10DE
// and 51234 is 0xC822 (ports are printed in host order).
const TCP = [
  HEADER,
  line(0, '0100007F:10DE', '00000000:0000', '0A', 1000),
  line(1, '0100007F:10DE', '0100007F:C822', '01', 1000),
  line(2, '0100007F:C822', '0100007F:10DE', '01', 1001),
  line(3, '00000000:1F90', '00000000:0000', '0A', 0),
  // The receiver's end of a connection from port 51236 (0xC824), whose client end is not listed.
  line(4, '0100007F:10DE', '0100007F:C824', '01', 1000),
  // From 51238 (0xC826), a client end its program closed already (FIN_WAIT2): no inode, uid 0.
  line(5, '0100007F:10DE', '0100007F:C826', '08', 1000),
  line(6, '0100007F:C826', '0100007F:10DE', '05', 0, 0),
  // From 51240 (0xC828), a client whose socket is IPv6 (tcp6 below): the receiver's end is IPv4.
  line(7, '0100007F:10DE', '0100007F:C828', '01', 1000),
  // Port 4320 (0x10E0): 127.0.0.2 (uid 1005) keeps nobody from 127.0.0.1; 0.0.0.0 (uid 1006) does.
  line(8, '0200007F:10E0', '00000000:0000', '0A', 1005),
  line(9, '00000000:10E0', '00000000:0000', '0A', 1006),
  'garbage line',
].join('\n');
// ::1 is 15 zero bytes and a 1: its last word's bytes 00 00 00 01 are the little-endian word 0x01000000.
const TCP6 = [
  HEADER,
  line(0, '00000000000000000000000001000000:10DF', '00000000000000000000000000000000:0000', '0A', 1002),
  line(1, '00000000000000000000000001000000:D431', '00000000000000000000000001000000:10DF', '01', 1003),
  line(2, '00000000000000000000000001000000:10DF', '00000000000000000000000001000000:D431', '01', 1002),
  line(3, '0000000000000000FFFF00000100007F:C828', '0000000000000000FFFF00000100007F:10DE', '01', 1000),
].join('\n');

const tables =
  (tcp: string | undefined, tcp6: string | undefined) =>
  (path: string): string => {
    const text = path.endsWith('tcp6') ? tcp6 : tcp;
    if (text === undefined) throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
    return text;
  };

describe('procAddress', () => {
  it('reads IPv4 and IPv6 words in the byte order of the machine that printed them', () => {
    expect(procAddress('0100007F', true)).toBe('127.0.0.1');
    expect(procAddress('7F000001', false)).toBe('127.0.0.1');
    expect(procAddress('0200007F', true)).toBe('127.0.0.2');
    expect(procAddress('00000000', true)).toBe('0.0.0.0');
    expect(procAddress('00000000000000000000000001000000', true)).toBe('::1');
    expect(procAddress('00000000000000000000000000000001', false)).toBe('::1');
    expect(procAddress('00000000000000000000000000000000', true)).toBe('::');
    // ::ffff:127.0.0.1, an IPv4 client of a dual-stack socket: words 0, 0, 0xFFFF0000 and 0x0100007F.
    expect(procAddress('0000000000000000FFFF00000100007F', true)).toBe('::ffff:127.0.0.1');
    // fe80::1:2, written with the longest run of zero groups as "::".
    expect(procAddress('000080FE000000000000000002000100', true)).toBe('fe80::1:2');
  });
});

describe('parseProcNet', () => {
  it('lists each socket with its endpoints, state and owner, skipping the header and what is not a socket', () => {
    const sockets = parseProcNet(TCP, true);
    expect(sockets).toHaveLength(10);
    expect(sockets[2]).toEqual({
      local: { address: '127.0.0.1', port: 51234 },
      remote: { address: '127.0.0.1', port: 4318 },
      state: '01',
      uid: 1001,
      inode: 40_002,
    });
  });
});

describe('connectionOwner', () => {
  const server = { address: '127.0.0.1', port: 4318 };
  it('is the uid of the client end: the socket whose local address is the connection’s remote one', () => {
    expect(connectionOwner({ address: '127.0.0.1', port: 51234 }, server, tables(TCP, TCP6))).toBe(1001);
    expect(connectionOwner({ address: '::1', port: 54321 }, { address: '::1', port: 4319 }, tables(TCP, TCP6))).toBe(1003);
  });
  it('reads tcp6 only when tcp does not hold both ends (each read walks the kernel’s whole table)', () => {
    const read: string[] = [];
    const counting = (path: string) => {
      read.push(path);
      return tables(TCP, TCP6)(path);
    };
    expect(connectionOwner({ address: '127.0.0.1', port: 51234 }, server, counting)).toBe(1001);
    expect(read).toEqual(['/proc/net/tcp']);
    read.length = 0;
    expect(connectionOwner({ address: '127.0.0.1', port: 51240 }, server, counting)).toBe(1000);
    expect(read).toEqual(['/proc/net/tcp', '/proc/net/tcp6']);
  });
  it('finds an IPv6 client end from ::ffff:127.0.0.1, which the receiver’s IPv4 socket names 127.0.0.1', () => {
    expect(connectionOwner({ address: '127.0.0.1', port: 51240 }, server, tables(TCP, TCP6))).toBe(1000);
  });
  it('is null when the tables list the receiver’s end but not the client’s', () => {
    expect(connectionOwner({ address: '127.0.0.1', port: 51236 }, server, tables(TCP, TCP6))).toBeNull();
  });
  it('is null when the client end is held by no process: its uid 0 says nothing of who opened it', () => {
    expect(connectionOwner({ address: '127.0.0.1', port: 51238 }, server, tables(TCP, TCP6))).toBeNull();
  });
  it('is undefined where the system does not say: no tables, or tables without the receiver’s own end', () => {
    expect(connectionOwner({ address: '127.0.0.1', port: 51234 }, server, tables(TCP, undefined))).toBe(1001);
    expect(connectionOwner({ address: '127.0.0.1', port: 51234 }, server, tables(undefined, undefined))).toBeUndefined();
    expect(connectionOwner({ address: '127.0.0.1', port: 51235 }, server, tables(TCP, TCP6))).toBeUndefined();
    // WSL 1 gives the tables, empty.
    expect(connectionOwner({ address: '127.0.0.1', port: 51234 }, server, tables(HEADER, HEADER))).toBeUndefined();
  });
});

describe('listenerOwner', () => {
  it('is the uid listening on the port at a loopback address or at every address', () => {
    expect(listenerOwner(4318, tables(TCP, TCP6))).toBe(1000);
    expect(listenerOwner(4319, tables(TCP, TCP6))).toBe(1002);
    expect(listenerOwner(8080, tables(TCP, TCP6))).toBe(0);
    // 51234 is a connected socket's port, not a listener's.
    expect(listenerOwner(51234, tables(TCP, TCP6))).toBeUndefined();
    expect(listenerOwner(4318, tables(undefined, undefined))).toBeUndefined();
  });
  it('is the uid of a listener that keeps the receiver from its own address, not one beside it', () => {
    expect(listenerOwner(4320, tables(TCP, TCP6), '127.0.0.1')).toBe(1006);
    expect(listenerOwner(4320, tables(TCP, TCP6), '127.0.0.2')).toBe(1005);
    // 0.0.0.0 takes IPv4 only: ::1 is free of it.
    expect(listenerOwner(4320, tables(TCP, TCP6), '::1')).toBeUndefined();
    expect(listenerOwner(4319, tables(TCP, TCP6), '::1')).toBe(1002);
    expect(listenerOwner(4319, tables(TCP, TCP6), '127.0.0.1')).toBeUndefined();
  });
});

describe('answersOwner', () => {
  it("answers its own user's connections and root's, and no one else's nor a connection of no known owner", () => {
    expect(answersOwner(1000, 1000)).toBe(true);
    expect(answersOwner(0, 1000)).toBe(true);
    expect(answersOwner(0, 0)).toBe(true);
    expect(answersOwner(1001, 1000)).toBe(false);
    expect(answersOwner(1000, 0)).toBe(false);
    expect(answersOwner(null, 1000)).toBe(false);
    expect(answersOwner(null, 0)).toBe(false);
  });
});
