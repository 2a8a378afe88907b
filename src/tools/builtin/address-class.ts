/**
 * What kind of network an IP address belongs to, for web_fetch's address policy. Every
 * spelling of an address counts: IPv4 in the inet_aton forms browsers and resolvers accept
 * (`2130706433`, `0x7f000001`, `0177.0.0.1`, `127.1`) and IPv6 that embeds an IPv4 address
 * (`::ffff:127.0.0.1`, NAT64, 6to4) is judged by the IPv4 address inside.
 */
import { isIPv6 } from 'node:net';

/** `public` is the only class web_fetch reaches without an `allow_hosts` entry. */
export type AddressClass =
  'public' | 'loopback' | 'private' | 'link-local' | 'metadata' | 'shared' | 'multicast' | 'unspecified' | 'reserved';

interface Range {
  /** The network's bytes (4 or 16), zero beyond the prefix. */
  network: number[];
  prefix: number;
  kind: Exclude<AddressClass, 'public'>;
}

function v4(dotted: string, prefix: number, kind: Range['kind']): Range {
  return { network: dotted.split('.').map(Number), prefix, kind };
}

function v6(text: string, prefix: number, kind: Range['kind']): Range {
  return { network: parseIPv6(text)!, prefix, kind };
}

// Most specific first: the first range that contains an address decides. Cloud metadata
// endpoints come before the networks they sit in, so messages can name them.
const IPV4_RANGES: readonly Range[] = [
  v4('169.254.169.254', 32, 'metadata'), // AWS, GCP, Azure IMDS, OpenStack
  v4('168.63.129.16', 32, 'metadata'), // Azure wire server
  v4('100.100.100.200', 32, 'metadata'), // Alibaba Cloud
  v4('0.0.0.0', 8, 'unspecified'),
  v4('10.0.0.0', 8, 'private'),
  v4('100.64.0.0', 10, 'shared'), // carrier-grade NAT
  v4('127.0.0.0', 8, 'loopback'),
  v4('169.254.0.0', 16, 'link-local'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.0.0.0', 24, 'reserved'), // IETF protocol assignments
  v4('192.0.2.0', 24, 'reserved'), // documentation
  v4('192.168.0.0', 16, 'private'),
  v4('198.18.0.0', 15, 'reserved'), // benchmarking
  v4('198.51.100.0', 24, 'reserved'), // documentation
  v4('203.0.113.0', 24, 'reserved'), // documentation
  v4('224.0.0.0', 4, 'multicast'),
  v4('240.0.0.0', 4, 'reserved'), // future use and the broadcast address
];

const IPV6_RANGES: readonly Range[] = [
  v6('fd00:ec2::254', 128, 'metadata'), // AWS IMDS over IPv6
  v6('::', 128, 'unspecified'),
  v6('::1', 128, 'loopback'),
  v6('64:ff9b:1::', 48, 'private'), // local-use NAT64
  v6('100::', 64, 'reserved'), // discard-only
  v6('2001::', 32, 'reserved'), // Teredo: the IPv4 address inside is obfuscated
  v6('2001:db8::', 32, 'reserved'), // documentation
  v6('fc00::', 7, 'private'), // unique local
  v6('fe80::', 10, 'link-local'),
  v6('fec0::', 10, 'private'), // deprecated site-local
  v6('ff00::', 8, 'multicast'),
];

function inRange(bytes: readonly number[], range: Range): boolean {
  let bits = range.prefix;
  for (let index = 0; bits > 0; index += 1, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[index] ?? 0) & mask) !== (range.network[index] ?? 0)) return false;
  }
  return true;
}

function classifyIn(bytes: readonly number[], ranges: readonly Range[]): AddressClass {
  return ranges.find((range) => inRange(bytes, range))?.kind ?? 'public';
}

/** One inet_aton part: decimal, `0x` hex or `0`-prefixed octal; undefined when malformed. */
function parsePart(part: string): number | undefined {
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : Number.parseInt(part.slice(2), 16);
  if (/^0[0-7]*$/.test(part)) return Number.parseInt(part, 8);
  if (/^[1-9][0-9]*$/.test(part)) return Number(part);
  return undefined;
}

/**
 * The four bytes of an IPv4 address in any inet_aton spelling (one to four parts, the last
 * filling the remaining bytes), or undefined when `text` is not one.
 *
 * @example parseIPv4('0x7f.1') // [127, 0, 0, 1]
 */
export function parseIPv4(text: string): number[] | undefined {
  const parts = (text.endsWith('.') ? text.slice(0, -1) : text).split('.');
  if (parts.length > 4) return undefined;
  const numbers = parts.map(parsePart);
  if (numbers.some((value) => value === undefined)) return undefined;
  const values = numbers as number[];
  const last = values.pop()!;
  if (values.some((value) => value > 255) || last >= 256 ** (4 - values.length)) return undefined;
  const bytes = [...values];
  for (let shift = 4 - values.length - 1; shift >= 0; shift -= 1) bytes.push(Math.floor(last / 256 ** shift) % 256);
  return bytes;
}

/** The sixteen bytes of an IPv6 address (zone id ignored), or undefined when `text` is not one. */
export function parseIPv6(text: string): number[] | undefined {
  const address = text.replace(/%.*$/, '');
  if (!isIPv6(address)) return undefined;
  const [head = '', tail] = address.split('::');
  const groups = (side: string): number[] => {
    if (side === '') return [];
    return side.split(':').flatMap((group) => {
      if (group.includes('.')) {
        const [a = 0, b = 0, c = 0, d = 0] = parseIPv4(group) ?? [];
        return [(a << 8) | b, (c << 8) | d];
      }
      return [Number.parseInt(group, 16)];
    });
  };
  const before = groups(head);
  const after = tail === undefined ? [] : groups(tail);
  const words = [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

/** The IPv4 address an IPv6 address stands for (mapped, compatible, NAT64, 6to4), if any. */
function embeddedIPv4(bytes: readonly number[]): number[] | undefined {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return bytes.slice(12);
  if (zeros(0, 12) && !zeros(12, 16) && !(zeros(12, 15) && bytes[15] === 1)) return bytes.slice(12);
  if (bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12)) return bytes.slice(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return bytes.slice(2, 6);
  return undefined;
}

/**
 * The class of an IP literal (brackets allowed), or undefined when `text` is not an IP address.
 *
 * @example classifyAddress('2130706433') // 'loopback'
 * @example classifyAddress('[::ffff:169.254.169.254]') // 'metadata'
 */
export function classifyAddress(text: string): AddressClass | undefined {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const ipv4 = parseIPv4(bare);
  if (ipv4) return classifyIn(ipv4, IPV4_RANGES);
  const ipv6 = parseIPv6(bare);
  if (!ipv6) return undefined;
  const inner = embeddedIPv4(ipv6);
  return inner ? classifyIn(inner, IPV4_RANGES) : classifyIn(ipv6, IPV6_RANGES);
}
