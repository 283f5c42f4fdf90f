// The one address guard of every server-side request to an address a user chose (an organization's
// identity provider, a budget's webhook): whether an IP address is one only the server's own network can
// reach. IPv6 is read as its 16 bytes, so every way of writing an IPv4 address inside one is caught:
// IPv4-mapped (::ffff:0:0/96, in dotted or hex form), IPv4-compatible (::/96), IPv4-translated
// (::ffff:0:0:0/96), 6to4 (2002::/16) and NAT64 (64:ff9b::/96) are judged by the IPv4 address they embed.
import { BlockList, isIP } from 'node:net';

const BLOCKED_V4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network, unspecified
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  BLOCKED_V4.addSubnet(net, prefix, 'ipv4');

const BLOCKED_V6 = new BlockList();
for (const [net, prefix] of [
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): translates to whatever the local network chooses
  ['100::', 64], // discard
  ['2001::', 32], // Teredo: the IPv4 address inside is obfuscated, and a relay reaches it
  ['2001:2::', 48], // benchmarking
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated, still routed by some stacks)
  ['ff00::', 8], // multicast
] as const)
  BLOCKED_V6.addSubnet(net, prefix, 'ipv6');

/** The 16 bytes of an IPv6 address (any textual form: compressed, a trailing dotted IPv4, a zone), or undefined. */
export function ipv6Bytes(address: string): number[] | undefined {
  const text = address.replace(/%.*$/, '').toLowerCase();
  if (isIP(text) !== 6) return undefined;
  let groups: string[] = [];
  const [head, tail] = text.includes('::') ? (text.split('::') as [string, string]) : [text, undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':'));
  const withV4 = (parts: string[]) => {
    const last = parts.at(-1);
    if (last?.includes('.')) {
      const [a, b, c, d] = last.split('.').map(Number) as [number, number, number, number];
      return [...parts.slice(0, -1), ((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
    }
    return parts;
  };
  if (tail === undefined) groups = withV4(parse(head));
  else {
    const left = parse(head);
    const right = withV4(parse(tail));
    groups = [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  }
  if (groups.length !== 8) return undefined;
  return groups.flatMap((g) => {
    const n = Number.parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

const v4 = (bytes: number[], at: number) => bytes.slice(at, at + 4).join('.');
const zero = (bytes: number[], from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);

/**
 * The IPv4 address an IPv6 address stands for or embeds, or undefined: IPv4-mapped ::ffff:a.b.c.d,
 * IPv4-translated ::ffff:0:a.b.c.d, IPv4-compatible ::a.b.c.d (:: and ::1 are their own case), 6to4
 * 2002:AABB:CCDD::/48, NAT64 64:ff9b::a.b.c.d. Pure.
 */
export function embeddedIpv4(bytes: number[]): string | undefined {
  if (zero(bytes, 0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return v4(bytes, 12);
  if (zero(bytes, 0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zero(bytes, 10, 12)) return v4(bytes, 12);
  if (zero(bytes, 0, 12)) return v4(bytes, 12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return v4(bytes, 2);
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(bytes, 4, 12)) return v4(bytes, 12);
  return undefined;
}

/** Whether a server-side request may go to this IP address: false for anything but a public unicast one. Pure. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return !BLOCKED_V4.check(address, 'ipv4');
  if (family !== 6) return false;
  const bytes = ipv6Bytes(address);
  if (!bytes) return false;
  const inner = embeddedIpv4(bytes);
  // ::/96 holds :: and ::1 and the deprecated IPv4-compatible form: none is a public provider's address.
  if (zero(bytes, 0, 12)) return false;
  if (inner !== undefined) return !BLOCKED_V4.check(inner, 'ipv4');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  const canonical = groups.join(':');
  return !BLOCKED_V6.check(canonical, 'ipv6');
}

/**
 * The host of a URL as an address to check: brackets taken off an IPv6 literal. The WHATWG URL parser has
 * already turned every IPv4 spelling (2130706433, 0x7f.1, 0177.0.0.1) into the dotted form, and an IPv6
 * literal into its compressed form.
 */
export const urlHost = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');
