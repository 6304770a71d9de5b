import { BlockList, isIP } from 'node:net';
import { ConfigError } from '@setpoint/foundation/errors';

/** Why an address is not public; null for a public unicast address. */
export type AddressClass =
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'unique-local'
  | 'link-local'
  | 'shared (CGNAT)'
  | 'multicast'
  | 'reserved'
  | 'documentation'
  | 'broadcast';

const v4Ranges: ReadonlyArray<[string, number, AddressClass]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];

const v6Ranges: ReadonlyArray<[string, number, AddressClass]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['64:ff9b:1::', 48, 'private'],
  ['100::', 64, 'reserved'],
  ['2001::', 32, 'reserved'], // Teredo: embeds an obfuscated IPv4 address
  ['2001:db8::', 32, 'documentation'],
  ['fc00::', 7, 'unique-local'],
  ['fe80::', 10, 'link-local'],
  ['fec0::', 10, 'private'],
  ['ff00::', 8, 'multicast'],
];

function classLists(ranges: ReadonlyArray<[string, number, AddressClass]>, family: 'ipv4' | 'ipv6') {
  const lists = new Map<AddressClass, BlockList>();
  for (const [network, prefix, kind] of ranges) {
    let list = lists.get(kind);
    if (!list) {
      list = new BlockList();
      lists.set(kind, list);
    }
    list.addSubnet(network, prefix, family);
  }
  return [...lists];
}

const v4Classes = classLists(v4Ranges, 'ipv4');
const v6Classes = classLists(v6Ranges, 'ipv6');

/** The 16 bytes of an IPv6 address (zone id dropped, a trailing dotted quad allowed). */
export function ipv6Bytes(address: string): Uint8Array {
  let text = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const groups = (part: string | undefined) =>
    part ? part.split(':').map((group) => Number.parseInt(group, 16)) : [];
  const [head, rest] = text.split('::') as [string, string | undefined];
  const front = groups(head);
  const back = groups(rest);
  const all =
    rest === undefined ? front : [...front, ...new Array(8 - front.length - back.length).fill(0), ...back];
  const bytes = new Uint8Array(16);
  all.forEach((group, index) => {
    bytes[index * 2] = (group >> 8) & 0xff;
    bytes[index * 2 + 1] = group & 0xff;
  });
  return bytes;
}

/** The IPv4 address an IPv6 one carries (mapped, NAT64, 6to4, IPv4-compatible), if any. */
export function embeddedIpv4(address: string): string | undefined {
  const b = ipv6Bytes(address);
  const zero = (from: number, to: number) => b.subarray(from, to).every((byte) => byte === 0);
  const quad = (at: number) => `${b[at]}.${b[at + 1]}.${b[at + 2]}.${b[at + 3]}`;
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return quad(12); // ::ffff:a.b.c.d
  if (b[0] === 0x00 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zero(4, 12)) return quad(12); // 64:ff9b::/96
  if (b[0] === 0x20 && b[1] === 0x02) return quad(2); // 2002::/16 (6to4)
  if (zero(0, 12) && !zero(12, 14)) return quad(12); // ::a.b.c.d (IPv4-compatible, deprecated)
  return undefined;
}

/**
 * What kind of non-public address `address` is, or null when it is public unicast. IPv6 forms that
 * carry an IPv4 address (::ffff:127.0.0.1, 64:ff9b::7f00:1, 2002:7f00:1::) are judged by it.
 */
export function classifyAddress(address: string): AddressClass | null {
  const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const family = isIP(bare);
  if (family === 4) {
    if (bare === '255.255.255.255') return 'broadcast';
    for (const [kind, list] of v4Classes) if (list.check(bare, 'ipv4')) return kind;
    return null;
  }
  if (family !== 6) return 'reserved';
  const embedded = embeddedIpv4(bare);
  if (embedded !== undefined) return classifyAddress(embedded);
  for (const [kind, list] of v6Classes) if (list.check(bare, 'ipv6')) return kind;
  return null;
}

/** The ports of one allow-list entry: any port, or the one it names. */
type PortRule = number | 'any';

function admits(rule: PortRule, port: number | undefined): boolean {
  return rule === 'any' || rule === port;
}

/**
 * `host`, `host:port`, `[v6]`, `[v6]:port`, `[v6/prefix]:port`, `a.b.c.d/prefix:port`; an IPv6 address
 * without brackets has no port. Returns the entry without its port, and the port rule.
 */
function splitPort(entry: string, raw: string): { target: string; port: PortRule } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) return { target: bracketed[1] as string, port: portOf(bracketed[2], raw) };
  const colons = entry.split(':').length - 1;
  if (colons !== 1) return { target: entry, port: 'any' };
  const [target, port] = entry.split(':') as [string, string];
  if (!/^\d+$/.test(port)) {
    throw new ConfigError(`outbound allow-list: "${raw}" is neither an address, a CIDR nor a host name`);
  }
  return { target, port: portOf(port, raw) };
}

function portOf(text: string | undefined, raw: string): PortRule {
  if (text === undefined) return 'any';
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65_535) {
    throw new ConfigError(`outbound allow-list: "${raw}" has an invalid port (1–65535)`);
  }
  return port;
}

/**
 * Hosts and networks an administrator trusts although they are not public (a Databricks emulator
 * on 127.0.0.1:8080, an S3-compatible store on 10.0.0.5:9000). Written as one setting:
 * `127.0.0.1:8080, 10.0.0.0/8, [fd00::1]:443, minio.internal:9000` — addresses, CIDRs and host names,
 * each with a port to admit only that port (without one, every port is admitted).
 */
export class OutboundAllowList {
  private readonly names: Array<{ name: string; port: PortRule }> = [];
  private readonly networks: Array<{ list: BlockList; port: PortRule }> = [];
  private empty = true;

  static parse(setting: string | readonly string[] | undefined): OutboundAllowList {
    const list = new OutboundAllowList();
    const entries = typeof setting === 'string' ? setting.split(/[\s,]+/) : (setting ?? []);
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase();
      if (!entry) continue;
      list.empty = false;
      const { target, port } = splitPort(entry, raw);
      const [network, prefixText] = target.split('/') as [string, string | undefined];
      const family = isIP(network);
      if (family === 0) {
        if (prefixText !== undefined || !/^[a-z0-9.-]+$/.test(network)) {
          throw new ConfigError(
            `outbound allow-list: "${raw}" is neither an address, a CIDR nor a host name`,
          );
        }
        list.names.push({ name: network.replace(/\.$/, ''), port });
        continue;
      }
      const maxPrefix = family === 4 ? 32 : 128;
      const prefix = prefixText === undefined ? maxPrefix : Number(prefixText);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > maxPrefix) {
        throw new ConfigError(`outbound allow-list: "${raw}" has an invalid prefix length`);
      }
      const networkList = new BlockList();
      networkList.addSubnet(network, prefix, family === 4 ? 'ipv4' : 'ipv6');
      list.networks.push({ list: networkList, port });
    }
    return list;
  }

  get isEmpty(): boolean {
    return this.empty;
  }

  /** Whether the host name (as written in a URL) is allow-listed for `port` (undefined: only entries without a port). */
  allowsHost(hostname: string, port?: number): boolean {
    const name = hostname
      .toLowerCase()
      .replace(/^\[|\]$/g, '')
      .replace(/\.$/, '');
    return this.names.some((entry) => entry.name === name && admits(entry.port, port));
  }

  /** Whether the address is in an allow-listed network for `port` (undefined: only entries without a port). */
  allowsAddress(address: string, port?: number): boolean {
    const bare = address.replace(/^\[|\]$/g, '').split('%')[0]!;
    const family = isIP(bare);
    if (family === 0) return false;
    const embedded = family === 6 ? embeddedIpv4(bare) : undefined;
    return this.networks.some(
      ({ list, port: rule }) =>
        admits(rule, port) &&
        (list.check(bare, family === 4 ? 'ipv4' : 'ipv6') ||
          (embedded !== undefined && list.check(embedded, 'ipv4'))),
    );
  }
}
