import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import { ValidationError } from '@setpoint/foundation/errors';
import { Agent } from 'undici';

/** Addresses a user-supplied URL must never reach: loopback, private, link-local, CGNAT, metadata, multicast. */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 3],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
// IPv4-mapped IPv6 (::ffff:a.b.c.d) is unwrapped in isPublicAddress; a BlockList rule for it would
// also match every plain IPv4 address.
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6 && address.toLowerCase().startsWith('::ffff:')) {
    const mapped = address.slice(7);
    if (isIP(mapped) === 4) return !blocked.check(mapped, 'ipv4');
  }
  return !blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Rejects URLs Setpoint will not fetch on a user's behalf (scheme and literal-address checks). */
export function assertFetchableUrl(raw: string, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError('EVENTLOG_URI_INVALID', `eventlog_uri is not a URL: ${raw.slice(0, 200)}`);
  }
  const schemes = allowPrivate ? ['https:', 'http:', 's3:'] : ['https:', 's3:'];
  if (!schemes.includes(url.protocol)) {
    throw new ValidationError(
      'EVENTLOG_URI_SCHEME',
      `eventlog_uri must be s3:// or https:// (got ${url.protocol}//)`,
    );
  }
  if (url.username || url.password) {
    throw new ValidationError('EVENTLOG_URI_CREDENTIALS', 'eventlog_uri must not embed credentials');
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (url.protocol !== 's3:' && !allowPrivate && isIP(host) !== 0 && !isPublicAddress(host)) {
    throw new ValidationError(
      'EVENTLOG_URI_PRIVATE',
      `eventlog_uri points at a private or loopback address (${host})`,
    );
  }
  return url;
}

/**
 * An undici dispatcher whose DNS lookup refuses non-public addresses, so the check holds at connect
 * time (no DNS-rebinding gap between validation and connection).
 */
export function publicOnlyAgent(): Agent {
  const lookup = (
    hostname: string,
    options: object,
    callback: (
      error: NodeJS.ErrnoException | null,
      address: string | LookupAddress[],
      family?: number,
    ) => void,
  ) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = addresses as LookupAddress[];
      const bad = list.find((entry) => !isPublicAddress(entry.address));
      if (bad) {
        return callback(
          Object.assign(
            new Error(`refusing to connect to non-public address ${bad.address} for ${hostname}`),
            {
              code: 'ESETPOINTPRIVATE',
            },
          ),
          [],
        );
      }
      const all = (options as { all?: boolean }).all;
      if (all) return callback(null, list);
      const first = list[0];
      return first
        ? callback(null, first.address, first.family)
        : callback(new Error(`no address for ${hostname}`), []);
    });
  };
  return new Agent({ connect: { lookup: lookup as never } });
}
