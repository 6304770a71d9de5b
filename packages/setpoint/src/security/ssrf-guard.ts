/**
 * The SSRF guard for every URL Setpoint fetches on a user's behalf (workspace host, S3 endpoint,
 * event-log URI, alert destinations). Two entry points:
 *
 * - `validateOutboundUrl(url, policy)` at configuration time: scheme, no embedded credentials, and
 *   every address the host resolves to is public or allow-listed; the OutboundUrlRefusedError says
 *   which rule refused it and why.
 * - `guardedDispatcher(policy)` (undici/fetch), `guardedNodeAgents(policy)` (node:http clients such
 *   as the AWS SDK) and `guardedFetch(url, init, policy)` at request time: the same address rule
 *   applied when each connection is made (the resolved address is the one connected to, so DNS
 *   rebinding cannot slip between check and use), and on every redirect hop.
 *
 * Non-public means loopback, private (RFC 1918, ULA fc00::/7 incl. fd00:ec2::254), link-local
 * (169.254/16, fe80::/10), CGNAT 100.64/10, unspecified (0.0.0.0/8, ::), multicast, reserved and
 * documentation ranges, and IPv6 forms that carry such an IPv4 address (::ffff:127.0.0.1,
 * 64:ff9b::7f00:1, 2002:7f00:1::). Decimal, hex and short IPv4 forms (2130706433, 0x7f000001,
 * 127.1) are normalised by the URL parser and by the resolver before the check.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIP } from 'node:net';
import { ValidationError } from '@setpoint/foundation/errors';
import {
  Agent,
  buildConnector,
  type Dispatcher,
  Headers,
  type RequestInit,
  type Response,
  fetch as undiciFetch,
} from 'undici';
import { classifyAddress, OutboundAllowList } from './address-policy.js';

export { classifyAddress, OutboundAllowList } from './address-policy.js';

export type LookupAll = (hostname: string) => Promise<LookupAddress[]>;

export interface OutboundPolicy {
  /** URL schemes allowed, with their colon: `['https:', 'http:']` unless said otherwise. */
  schemes?: readonly string[];
  /** Hosts and networks admitted although not public; parse a setting with OutboundAllowList.parse. */
  allow?: OutboundAllowList;
  /** Name resolution (all addresses); dns.lookup unless replaced (tests). */
  lookup?: LookupAll;
  /** Redirects followed by guardedFetch, each hop checked again. */
  maxRedirects?: number;
}

export type RefusalReason = 'invalid' | 'scheme' | 'credentials' | 'address' | 'unresolvable' | 'redirects';

/** A URL or connection refused by the guard; `reason` is machine-readable, the message says why. */
export class OutboundUrlRefusedError extends ValidationError {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super('OUTBOUND_URL_REFUSED', message, { details: { reason } });
  }
}

const defaultSchemes = ['https:', 'http:'];
const allowListHint = 'add it to the outbound allow-list if this host is trusted';

const systemLookup: LookupAll = (hostname) =>
  new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });

function display(url: string): string {
  return url.length > 200 ? `${url.slice(0, 200)}…` : url;
}

/** Bracket-free host of a parsed URL. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Why `address` (reached for `host`) is refused, or null when it may be connected to. */
export function addressRefusal(address: string, host: string, allow?: OutboundAllowList): string | null {
  const kind = classifyAddress(address);
  if (kind === null) return null;
  if (allow && (allow.allowsHost(host) || allow.allowsAddress(address))) return null;
  const via = address === host ? address : `${host} resolves to ${address}, which`;
  return `${via} is a ${kind} address; ${allowListHint}`;
}

/**
 * The checks that need no network: a parseable URL, an allowed scheme, no `user:password@`, and,
 * when the host is an IP literal, a public or allow-listed address. Returns the parsed URL.
 */
export function checkOutboundUrl(raw: string, policy: OutboundPolicy = {}): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundUrlRefusedError('invalid', `${display(raw)} is not a URL`);
  }
  const schemes = policy.schemes ?? defaultSchemes;
  if (!schemes.includes(url.protocol)) {
    throw new OutboundUrlRefusedError(
      'scheme',
      `${display(raw)}: the scheme ${url.protocol} is not allowed here (allowed: ${schemes.join(' ')})`,
    );
  }
  if (url.username || url.password) {
    throw new OutboundUrlRefusedError(
      'credentials',
      `${url.protocol}//${url.host}: a URL must not embed credentials`,
    );
  }
  const host = bareHost(url);
  if (isHttp(url) && isIP(host) !== 0) {
    const refusal = addressRefusal(host, host, policy.allow);
    if (refusal) throw new OutboundUrlRefusedError('address', `${url.origin}: ${refusal}`);
  }
  return url;
}

function isHttp(url: URL): boolean {
  return url.protocol === 'http:' || url.protocol === 'https:';
}

/**
 * Configuration-time check of a URL Setpoint will call: `checkOutboundUrl`, then every address its
 * host resolves to must be public or allow-listed. Non-HTTP schemes a caller allows (s3:) name a
 * bucket, not a host, and are not resolved.
 */
export async function validateOutboundUrl(raw: string, policy: OutboundPolicy = {}): Promise<URL> {
  const url = checkOutboundUrl(raw, policy);
  const host = bareHost(url);
  if (!isHttp(url) || isIP(host) !== 0) return url;
  const addresses = await resolveAll(host, policy);
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, host, policy.allow);
    if (refusal) throw new OutboundUrlRefusedError('address', `${url.origin}: ${refusal}`);
  }
  return url;
}

async function resolveAll(host: string, policy: OutboundPolicy): Promise<LookupAddress[]> {
  let addresses: LookupAddress[];
  try {
    addresses = await (policy.lookup ?? systemLookup)(host);
  } catch (error) {
    const code =
      (error as { code?: string }).code ?? (error instanceof Error ? error.message : String(error));
    throw new OutboundUrlRefusedError('unresolvable', `${host} does not resolve (${code})`);
  }
  if (addresses.length === 0) throw new OutboundUrlRefusedError('unresolvable', `${host} does not resolve`);
  return addresses;
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A dns.lookup-shaped resolver that fails with a refusal when any address is not admitted. */
function guardedLookup(policy: OutboundPolicy) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolveAll(hostname, policy).then(
      (addresses) => {
        for (const { address } of addresses) {
          const refusal = addressRefusal(address, hostname, policy.allow);
          if (refusal) return callback(connectRefusal(`${hostname}: ${refusal}`), []);
        }
        if (options.all) return callback(null, addresses);
        const first = addresses[0]!;
        return callback(null, first.address, first.family);
      },
      (error: unknown) => callback(error as NodeJS.ErrnoException, []),
    );
  };
}

/** The refusal for connecting to `hostname` when it is an IP literal (no lookup happens for those). */
function literalRefusal(hostname: string | null | undefined, policy: OutboundPolicy): Error | undefined {
  const host = (hostname ?? '').replace(/^\[|\]$/g, '');
  if (isIP(host) === 0) return undefined;
  const refusal = addressRefusal(host, host, policy.allow);
  return refusal ? connectRefusal(`${host}: ${refusal}`) : undefined;
}

/**
 * An undici dispatcher that refuses, when each connection is made, any address the policy does not
 * admit: host names through the resolver it checks, IP literals directly. Use it for every request
 * to a user-supplied host (`fetch(url, { dispatcher })`); redirects followed with it are checked on
 * every hop too.
 */
export function guardedDispatcher(policy: OutboundPolicy = {}): Agent {
  const connector = buildConnector({ lookup: guardedLookup(policy) as never });
  const connect: buildConnector.connector = (options, callback) => {
    const refused = literalRefusal(options.hostname, policy);
    if (refused) {
      callback(refused, null);
      return;
    }
    connector(options, callback);
  };
  return new Agent({ connect });
}

/**
 * node:http and node:https agents with the same connect-time rule, for clients built on node:http
 * (the AWS SDK: `new S3Client({ requestHandler: guardedNodeAgents(policy) })`).
 */
export function guardedNodeAgents(policy: OutboundPolicy = {}): {
  httpAgent: HttpAgent;
  httpsAgent: HttpsAgent;
} {
  const lookup = guardedLookup(policy);
  type Connect = HttpAgent['createConnection'];
  const guard =
    (create: Connect): Connect =>
    (options, callback) => {
      const refused = literalRefusal(options.host, policy);
      if (refused) {
        callback?.(refused, undefined as never);
        return undefined;
      }
      return create({ ...options, lookup: lookup as never }, callback);
    };
  const httpAgent = new HttpAgent({ keepAlive: true });
  httpAgent.createConnection = guard(httpAgent.createConnection.bind(httpAgent));
  const httpsAgent = new HttpsAgent({ keepAlive: true });
  httpsAgent.createConnection = guard(httpsAgent.createConnection.bind(httpsAgent));
  return { httpAgent, httpsAgent };
}

const refusalCode = 'ESETPOINTREFUSED';

function connectRefusal(message: string): Error {
  return Object.assign(new OutboundUrlRefusedError('address', `refusing to connect: ${message}`), {
    errno: refusalCode,
  });
}

/** The guard's own refusal inside an undici error (fetch wraps connection errors in `cause`). */
export function refusalIn(error: unknown): OutboundUrlRefusedError | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof OutboundUrlRefusedError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Headers a redirect to another origin must not carry. */
const credentialHeaders = [
  'authorization',
  'cookie',
  'proxy-authorization',
  'x-databricks-azure-sp-management-token',
];

/**
 * fetch through `guardedDispatcher`, following redirects by hand (at most `maxRedirects`, 5 by
 * default): each Location is checked with `validateOutboundUrl` before it is requested, and
 * credentials are dropped when a redirect leaves the origin. Refusals throw OutboundUrlRefusedError.
 */
export async function guardedFetch(
  raw: string,
  init: RequestInit = {},
  policy: OutboundPolicy = {},
  dispatcher: Dispatcher = guardedDispatcher(policy),
): Promise<Response> {
  let url = await validateOutboundUrl(raw, policy);
  let headers = new Headers(init.headers);
  let method = init.method ?? 'GET';
  let body = init.body;
  const maxRedirects = policy.maxRedirects ?? 5;
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await undiciFetch(url, { ...init, method, headers, body, redirect: 'manual', dispatcher });
    } catch (error) {
      throw refusalIn(error) ?? error;
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status > 399 || location === null) return response;
    await response.body?.cancel();
    if (hop >= maxRedirects) {
      throw new OutboundUrlRefusedError('redirects', `${url.origin}: more than ${maxRedirects} redirects`);
    }
    const next = await validateOutboundUrl(new URL(location, url).href, policy);
    if (next.origin !== url.origin) {
      headers = new Headers(headers);
      for (const name of credentialHeaders) headers.delete(name);
    }
    if (
      response.status === 303 ||
      ((response.status === 301 || response.status === 302) && method === 'POST')
    ) {
      method = 'GET';
      body = undefined;
      headers.delete('content-type');
    }
    url = next;
  }
}

/** Whether `address` is public unicast (no allow-list). */
export function isPublicAddress(address: string): boolean {
  return isIP(address.replace(/^\[|\]$/g, '')) !== 0 && classifyAddress(address) === null;
}

/**
 * Rejects an `eventlog_uri` Setpoint will not fetch: s3:// or https:// (plain http:// only to an
 * allow-listed host), no embedded credentials, no private or loopback literal unless allow-listed.
 * Host names are checked again when the download connects.
 */
export function assertFetchableUrl(raw: string, allow: OutboundAllowList = OutboundAllowList.parse('')): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError('EVENTLOG_URI_INVALID', `eventlog_uri is not a URL: ${display(raw)}`);
  }
  const host = bareHost(url);
  const allowListed = allow.allowsHost(host) || allow.allowsAddress(host);
  const schemes = allowListed ? ['https:', 'http:', 's3:'] : ['https:', 's3:'];
  if (!schemes.includes(url.protocol)) {
    throw new ValidationError(
      'EVENTLOG_URI_SCHEME',
      `eventlog_uri must be s3:// or https:// (got ${url.protocol}//)`,
    );
  }
  if (url.username || url.password) {
    throw new ValidationError('EVENTLOG_URI_CREDENTIALS', 'eventlog_uri must not embed credentials');
  }
  if (url.protocol !== 's3:' && !allowListed && isIP(host) !== 0 && !isPublicAddress(host)) {
    throw new ValidationError(
      'EVENTLOG_URI_PRIVATE',
      `eventlog_uri points at a private or loopback address (${host}); ${allowListHint}`,
    );
  }
  return url;
}

/** `guardedDispatcher` with no allow-list: public addresses only. */
export function publicOnlyAgent(): Agent {
  return guardedDispatcher();
}
