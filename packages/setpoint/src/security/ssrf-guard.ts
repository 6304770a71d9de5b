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
/** How to admit a trusted host, in words a person can act on: the setting's name and an entry for this host. */
function allowListHint(host: string, port: number | undefined): string {
  const entry = port === undefined ? host : `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  return `if this host is trusted, allow it on the Setpoint server with SETPOINT_OUTBOUND_ALLOW_LIST=${entry} (or outboundAllowList in its config file; comma-separated entries) and restart the server`;
}

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

/** Why `address` (reached for `host` on `port`) is refused, or null when it may be connected to. */
export function addressRefusal(
  address: string,
  host: string,
  allow: OutboundAllowList | undefined,
  port: number | undefined,
): string | null {
  const kind = classifyAddress(address);
  if (kind === null) return null;
  if (allow && (allow.allowsHost(host, port) || allow.allowsAddress(address, port))) return null;
  const via = address === host ? address : `${host} resolves to ${address}, which`;
  const where = port === undefined ? '' : ` (port ${port})`;
  return `${via} is a ${kind} address${where}; ${allowListHint(host, port)}`;
}

const defaultPorts: Record<string, number> = { 'http:': 80, 'https:': 443, 'smtp:': 25, 's3:': 443 };

/** The port a URL connects to: its own, or its scheme's default. */
export function portOfUrl(url: URL): number | undefined {
  return url.port ? Number(url.port) : defaultPorts[url.protocol];
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
    const refusal = addressRefusal(host, host, policy.allow, portOfUrl(url));
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
    const refusal = addressRefusal(address, host, policy.allow, portOfUrl(url));
    if (refusal) throw new OutboundUrlRefusedError('address', `${url.origin}: ${refusal}`);
  }
  return url;
}

/** Where a TCP client that is not HTTP (an SMTP client) connects: a checked address, and the name TLS verifies. */
export interface OutboundEndpoint {
  address: string;
  port: number;
  /** The host name as configured, for SNI and certificate checks; undefined for an address. */
  servername: string | undefined;
}

/**
 * The SSRF rule for a service that is not reached by URL (an SMTP server's host and port): the host, a
 * name or an address in any form the system resolver reads (`2130706433`, `0x7f000001`, `127.1`,
 * `[::1]`), is resolved once and every address must be public or allow-listed for `port`. The client
 * then connects to the returned address, never to the name again, so a name cannot resolve elsewhere
 * between the check and the connection. Use it both when the endpoint is saved and before each use.
 */
export async function resolveOutboundEndpoint(
  rawHost: string,
  port: number,
  policy: OutboundPolicy = {},
): Promise<OutboundEndpoint> {
  const host = rawHost.trim().replace(/^\[|\]$/g, '');
  const label = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  if (!host || host.length > 255 || /[\s/?#@\\]/.test(host)) {
    throw new OutboundUrlRefusedError('invalid', `${display(rawHost)} is not a host name or address`);
  }
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new OutboundUrlRefusedError('invalid', `${label}: the port must be 1–65535`);
  }
  const addresses =
    isIP(host) !== 0 ? [{ address: host, family: isIP(host) }] : await resolveAll(host, policy);
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, host, policy.allow, port);
    if (refusal) throw new OutboundUrlRefusedError('address', `${label}: ${refusal}`);
  }
  const first = addresses[0] as LookupAddress;
  return { address: first.address, port, servername: isIP(host) === 0 ? host : undefined };
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

/** A dns.lookup-shaped resolver for connections to `port` that fails with a refusal when any address is not admitted. */
function guardedLookup(policy: OutboundPolicy, port: number | undefined) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolveAll(hostname, policy).then(
      (addresses) => {
        for (const { address } of addresses) {
          const refusal = addressRefusal(address, hostname, policy.allow, port);
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
function literalRefusal(
  hostname: string | null | undefined,
  port: number | undefined,
  policy: OutboundPolicy,
): Error | undefined {
  const host = (hostname ?? '').replace(/^\[|\]$/g, '');
  if (isIP(host) === 0) return undefined;
  const refusal = addressRefusal(host, host, policy.allow, port);
  return refusal ? connectRefusal(`${host}: ${refusal}`) : undefined;
}

/**
 * An undici dispatcher that refuses, when each connection is made, any address the policy does not
 * admit: host names through the resolver it checks, IP literals directly. Use it for every request
 * to a user-supplied host (`fetch(url, { dispatcher })`); redirects followed with it are checked on
 * every hop too.
 */
export function guardedDispatcher(policy: OutboundPolicy = {}): Agent {
  // the allow-list may admit a host on one port only: one connector (its lookup) per port
  const connectors = new Map<number | undefined, buildConnector.connector>();
  const connect: buildConnector.connector = (options, callback) => {
    const port = connectPort(options.port, options.protocol);
    const refused = literalRefusal(options.hostname, port, policy);
    if (refused) {
      callback(refused, null);
      return;
    }
    let connector = connectors.get(port);
    if (!connector) {
      connector = buildConnector({ lookup: guardedLookup(policy, port) as never });
      connectors.set(port, connector);
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
  type Connect = HttpAgent['createConnection'];
  const guard =
    (create: Connect): Connect =>
    (options, callback) => {
      const port = connectPort(options.port, options.protocol);
      const refused = literalRefusal(options.host, port, policy);
      if (refused) {
        callback?.(refused, undefined as never);
        return undefined;
      }
      return create({ ...options, lookup: guardedLookup(policy, port) as never }, callback);
    };
  const httpAgent = new HttpAgent({ keepAlive: true });
  httpAgent.createConnection = guard(httpAgent.createConnection.bind(httpAgent));
  const httpsAgent = new HttpsAgent({ keepAlive: true });
  httpsAgent.createConnection = guard(httpsAgent.createConnection.bind(httpsAgent));
  return { httpAgent, httpsAgent };
}

/** The port a connection goes to, from a client's connect options (a string or number, or the protocol's default). */
function connectPort(port: unknown, protocol: unknown): number | undefined {
  const value = Number(port);
  if (port !== undefined && port !== null && port !== '' && Number.isInteger(value) && value > 0)
    return value;
  return protocol === 'http:' ? 80 : protocol === 'https:' ? 443 : undefined;
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
 * credentials are dropped when a redirect leaves the origin; a 307/308 that would re-send a body to
 * another origin is refused. Refusals throw OutboundUrlRefusedError.
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
    const keepsBody =
      (response.status === 307 || response.status === 308) && body !== undefined && body !== null;
    if (next.origin !== url.origin && keepsBody) {
      // a 307/308 re-sends the body, which may hold a secret (an OAuth client_secret): never to another origin
      throw new OutboundUrlRefusedError(
        'redirects',
        `${url.origin}: refusing to send the request body on to ${next.origin} (a cross-origin ${response.status} redirect)`,
      );
    }
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
  const port = portOfUrl(url);
  const allowListed = allow.allowsHost(host, port) || allow.allowsAddress(host, port);
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
      `eventlog_uri points at a private or loopback address (${host}); ${allowListHint(host, port)}`,
    );
  }
  return url;
}

/** `guardedDispatcher` with no allow-list: public addresses only. */
export function publicOnlyAgent(): Agent {
  return guardedDispatcher();
}
