// The one address guard (api/http/address-guard.ts) over every form an attacker wrote an internal
// address in, through both of its callers: the OIDC issuer check and the webhook destination check. No
// name is resolved: every host here is an IP literal, or an IPv4 spelling the URL parser normalizes.
import { describe, expect, it } from 'vitest';
import { resolveDestination } from '../../api/budgets/destination.ts';
import { embeddedIpv4, ipv6Bytes, isPublicAddress } from '../../api/http/address-guard.ts';
import { refusal } from '../../api/oidc/guard.ts';

/** Hosts as written in a URL, each an internal address in some disguise. */
const INTERNAL = [
  '127.0.0.1',
  '2130706433', // 127.0.0.1 as one decimal number
  '0x7f.1', // 127.0.0.1 in hex, short form
  '0177.0.0.1', // octal
  '10.1.2.3',
  '172.16.0.1',
  '192.168.0.10',
  '169.254.169.254',
  '100.64.0.1',
  '0.0.0.0',
  '[::1]',
  '[::]',
  '[::ffff:127.0.0.1]', // IPv4-mapped, dotted
  '[::ffff:7f00:1]', // IPv4-mapped, hex
  '[0:0:0:0:0:ffff:7f00:1]', // IPv4-mapped, uncompressed
  '[::FFFF:A9FE:A9FE]', // IPv4-mapped 169.254.169.254, upper case
  '[::ffff:0:7f00:1]', // IPv4-translated (::ffff:0:0:0/96)
  '[::127.0.0.1]', // IPv4-compatible (::/96)
  '[::7f00:1]', // IPv4-compatible, hex
  '[::808:808]', // ::/96 even around a public IPv4 address: deprecated, never a provider's
  '[2002:7f00:1::]', // 6to4 of 127.0.0.1
  '[2002:c0a8:0001::1]', // 6to4 of 192.168.0.1
  '[2002:a9fe:a9fe::]', // 6to4 of 169.254.169.254
  '[64:ff9b::7f00:1]', // NAT64 of 127.0.0.1
  '[64:ff9b::10.0.0.1]', // NAT64 of 10.0.0.1, dotted
  '[64:ff9b:1::1]', // local-use NAT64
  '[2001:0:4136:e378:8000:63bf:3fff:fdd2]', // Teredo
  '[fd00::1]',
  '[fe80::1]',
  '[fec0::1]',
  '[ff02::1]',
  '[2001:db8::1]',
];
const PUBLIC = ['93.184.216.34', '8.8.8.8', '[2606:4700:4700::1111]', '[::ffff:808:808]', '[2002:808:808::1]', '[64:ff9b::808:808]'];

describe('the address guard', () => {
  it('reads every IPv6 form as its bytes, and the IPv4 address it embeds', () => {
    expect(ipv6Bytes('::ffff:127.0.0.1')).toEqual(ipv6Bytes('::ffff:7f00:1'));
    expect(ipv6Bytes('0:0:0:0:0:ffff:7f00:1')).toEqual(ipv6Bytes('::ffff:7f00:1'));
    expect(embeddedIpv4(ipv6Bytes('::ffff:7f00:1')!)).toBe('127.0.0.1');
    expect(embeddedIpv4(ipv6Bytes('2002:c0a8:0001::1')!)).toBe('192.168.0.1');
    expect(embeddedIpv4(ipv6Bytes('64:ff9b::a00:1')!)).toBe('10.0.0.1');
    expect(embeddedIpv4(ipv6Bytes('2606:4700:4700::1111')!)).toBeUndefined();
    expect(ipv6Bytes('not-an-ip')).toBeUndefined();
    expect(isPublicAddress('not-an-ip')).toBe(false);
  });

  for (const host of INTERNAL) {
    it(`refuses https://${host}/ for OIDC and for webhooks`, async () => {
      const url = new URL(`https://${host}/`);
      expect(await refusal(url, false)).toMatch(/private or local address.*--allow-private-oidc/);
      await expect(resolveDestination(url.href, false)).rejects.toThrow(/private, loopback or link-local.*--allow-private-webhooks/);
      // Each caller's flag lets it through, for a provider or a receiver inside the company network.
      expect(await refusal(url, true)).toBeUndefined();
      await expect(resolveDestination(url.href, true)).resolves.toMatchObject({ url });
    });
  }

  it('lets public addresses through both, in any form', async () => {
    for (const host of PUBLIC) {
      const url = new URL(`https://${host}/`);
      expect(await refusal(url, false), host).toBeUndefined();
      await expect(resolveDestination(url.href, false), host).resolves.toMatchObject({ url });
    }
  });
});
