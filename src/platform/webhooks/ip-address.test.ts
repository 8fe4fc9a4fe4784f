import { describe, expect, it } from 'vitest';
import { classifyAddress, parseIp } from './ip-address.js';
import { addressAllowed, targetRules } from './url-policy.js';

describe('classifyAddress', () => {
  it.each([
    ['93.184.216.34', 'public'],
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['10.255.255.255', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['224.0.0.251', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
  ])('IPv4 %s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it.each([
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b:1::1', 'private'],
    ['::127.0.0.1', 'reserved'],
    ['100::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['2001:db8::1', 'documentation'],
    ['2002:7f00:1::1', 'reserved'],
    ['3fff::1', 'documentation'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['4000::1', 'reserved'],
  ])('IPv6 %s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it('answers undefined for text that is not an IP address', () => {
    for (const text of ['example.com', '256.0.0.1', '1.2.3', ':::1', '']) expect(classifyAddress(text)).toBeUndefined();
  });

  it('parses IPv6 with compressed zeros and an embedded IPv4 address into 16 bytes', () => {
    expect([...parseIp('2001:db8::ff00:42:8329')!]).toEqual([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0xff, 0x00, 0x00, 0x42, 0x83, 0x29]);
    expect([...parseIp('::ffff:1.2.3.4')!].slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4]);
    expect([...parseIp('[::1]')!].at(-1)).toBe(1);
  });
});

describe('addressAllowed', () => {
  const rules = (mode: 'test' | 'live', webhookAllowLoopback: boolean) => targetRules({ webhookAllowLoopback }, mode);

  it('allows public addresses in both modes and loopback in test mode only, where the server allows it', () => {
    for (const allow of [true, false]) {
      expect(addressAllowed('public', rules('live', allow))).toBe(true);
      expect(addressAllowed('public', rules('test', allow))).toBe(true);
      expect(addressAllowed('loopback', rules('live', allow))).toBe(false);
    }
    expect(addressAllowed('loopback', rules('test', true))).toBe(true);
    expect(addressAllowed('loopback', rules('test', false))).toBe(false);
    for (const kind of ['private', 'link-local', 'shared', 'multicast', 'unspecified', 'documentation', 'reserved', undefined] as const) {
      expect(addressAllowed(kind, rules('test', true)), kind).toBe(false);
      expect(addressAllowed(kind, rules('live', true)), kind).toBe(false);
    }
  });
});
