import { isIPv4, isIPv6 } from 'node:net';

/**
 * What kind of network an IP address belongs to, after the IANA special-purpose registries.
 * Only `public` addresses are reachable on the internet; webhooks refuse the rest (test mode also
 * allows `loopback`), so a URL can never make us call into our own or a private network.
 */
export type AddressKind =
  'public' | 'loopback' | 'private' | 'link-local' | 'shared' | 'multicast' | 'unspecified' | 'documentation' | 'reserved';

type Range = [prefix: number[], bits: number, kind: AddressKind];

const IPV4_RANGES: Range[] = [
  [[0, 0, 0, 0], 8, 'unspecified'], // "this network"
  [[10, 0, 0, 0], 8, 'private'],
  [[100, 64, 0, 0], 10, 'shared'], // carrier-grade NAT
  [[127, 0, 0, 0], 8, 'loopback'],
  [[169, 254, 0, 0], 16, 'link-local'], // includes cloud metadata services (169.254.169.254)
  [[172, 16, 0, 0], 12, 'private'],
  [[192, 0, 0, 0], 24, 'reserved'], // IETF protocol assignments
  [[192, 0, 2, 0], 24, 'documentation'],
  [[192, 88, 99, 0], 24, 'reserved'], // former 6to4 relay anycast
  [[192, 168, 0, 0], 16, 'private'],
  [[198, 18, 0, 0], 15, 'reserved'], // benchmarking
  [[198, 51, 100, 0], 24, 'documentation'],
  [[203, 0, 113, 0], 24, 'documentation'],
  [[224, 0, 0, 0], 4, 'multicast'],
  [[240, 0, 0, 0], 4, 'reserved'], // includes the broadcast address
];

const IPV6_RANGES: Range[] = [
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 128, 'unspecified'],
  [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1], 128, 'loopback'],
  [[0x00, 0x64, 0xff, 0x9b, 0x00, 0x01], 48, 'private'], // local-use NAT64
  [[0x01, 0x00, 0, 0, 0, 0, 0, 0], 64, 'reserved'], // discard-only
  [[0x20, 0x01, 0x00, 0x00], 23, 'reserved'], // IETF protocol assignments, Teredo
  [[0x20, 0x01, 0x0d, 0xb8], 32, 'documentation'],
  [[0x20, 0x02], 16, 'reserved'], // 6to4: would reach an IPv4 address we cannot vet
  [[0x3f, 0xff], 20, 'documentation'],
  [[0x5f, 0x00], 16, 'reserved'], // SRv6 SIDs
  [[0xfc, 0x00], 7, 'private'], // unique local
  [[0xfe, 0x80], 10, 'link-local'],
  [[0xfe, 0xc0], 10, 'private'], // deprecated site-local
  [[0xff, 0x00], 8, 'multicast'],
];

const IPV4_MAPPED: Range = [[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff], 96, 'public'];
const NAT64: Range = [[0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96, 'public'];
const GLOBAL_UNICAST: Range = [[0x20], 3, 'public'];

/** The kind of network of an IPv4 or IPv6 address (text as Node's DNS returns it); undefined if it is not an IP address. */
export function classifyAddress(address: string): AddressKind | undefined {
  const bytes = parseIp(address);
  if (!bytes) return undefined;
  if (bytes.length === 4) return lookup(bytes, IPV4_RANGES) ?? 'public';
  // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses reach the embedded IPv4 address.
  if (matches(bytes, IPV4_MAPPED) || matches(bytes, NAT64)) return lookup(bytes.subarray(12), IPV4_RANGES) ?? 'public';
  const special = lookup(bytes, IPV6_RANGES);
  if (special) return special;
  // Everything outside global unicast (2000::/3) is unassigned or special: not somewhere to send data.
  return matches(bytes, GLOBAL_UNICAST) ? 'public' : 'reserved';
}

/** An IP address as 4 or 16 bytes; undefined when the text is not one. A zone (`%eth0`) is ignored. */
export function parseIp(text: string): Uint8Array | undefined {
  const address = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (isIPv4(address)) return Uint8Array.from(address.split('.').map(Number));
  if (!isIPv6(address)) return undefined;
  const [head = '', tail] = address.split('::') as [string, string | undefined];
  const groups = (part: string): number[] => {
    if (part === '') return [];
    return part.split(':').flatMap((group) => {
      if (group.includes('.')) {
        const [a = 0, b = 0, c = 0, d = 0] = group.split('.').map(Number);
        return [(a << 8) | b, (c << 8) | d];
      }
      return [parseInt(group, 16)];
    });
  };
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    bytes[i * 2] = group >> 8;
    bytes[i * 2 + 1] = group & 0xff;
  });
  return bytes;
}

function lookup(bytes: Uint8Array, ranges: Range[]): AddressKind | undefined {
  return ranges.find((range) => matches(bytes, range))?.[2];
}

function matches(bytes: Uint8Array, [prefix, bits]: Range): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const remaining = Math.min(8, bits - bit);
    const mask = (0xff << (8 - remaining)) & 0xff;
    const index = bit / 8;
    if (((bytes[index] ?? 0) & mask) !== ((prefix[index] ?? 0) & mask)) return false;
  }
  return true;
}
