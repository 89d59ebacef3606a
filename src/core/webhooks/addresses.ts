/**
 * Which IP addresses a webhook may be aimed at (docs/events.md "Webhooks"): public unicast only. Loopback, private
 * (RFC 1918, unique-local), link-local (where cloud metadata services answer, 169.254.169.254 and fd00:ec2::254
 * included), carrier-grade NAT, multicast, reserved, documentation and benchmarking ranges are refused, and so is an
 * IPv6 address that embeds one of those IPv4 addresses (v4-mapped, NAT64, 6to4). Pure.
 */
import { isIP } from 'node:net';

/** [first address as a 32-bit number, prefix length]. */
const BLOCKED_V4: readonly (readonly [string, number])[] = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

function v4Number(address: string): number {
  const parts = address.split('.').map(Number);
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

const inV4Range = (n: number, [base, bits]: readonly [string, number]): boolean => bits === 0 || n >>> (32 - bits) === v4Number(base) >>> (32 - bits);

function publicV4(address: string): boolean {
  const n = v4Number(address);
  return !BLOCKED_V4.some((range) => inV4Range(n, range));
}

/** The eight 16-bit groups of an IPv6 address (zone id dropped, embedded dotted IPv4 folded in). */
function v6Groups(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4Number(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const fill = tail === undefined ? [] : new Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...fill, ...right].map((g) => parseInt(g, 16));
}

const v4Of = (hi: number, lo: number): string => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

function publicV6(address: string): boolean {
  const g = v6Groups(address);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return publicV4(v4Of(g[6]!, g[7]!)); // ::ffff:a.b.c.d, v4-mapped
  if (zeros(0, 6)) return false; // ::, ::1 and the deprecated v4-compatible ::a.b.c.d
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return publicV4(v4Of(g[6]!, g[7]!)); // NAT64
  if (g[0] === 0x2002) return publicV4(v4Of(g[1]!, g[2]!)); // 6to4
  if ((g[0]! & 0xe000) !== 0x2000) return false; // outside 2000::/3, the global unicast space (fc00::/7, fe80::/10, ff00::/8…)
  if (g[0] === 0x2001 && g[1]! < 0x200) return false; // 2001::/23 IETF protocol assignments (Teredo, benchmarking…)
  if (g[0] === 0x2001 && g[1] === 0xdb8) return false; // documentation
  return true;
}

/** True when `address` (an IPv4 or IPv6 literal) is a public unicast address; false for anything else, non-addresses included. */
export function isPublicAddress(address: string): boolean {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare.split('%')[0]!);
  if (family === 4) return publicV4(bare);
  if (family === 6) return publicV6(bare);
  return false;
}
