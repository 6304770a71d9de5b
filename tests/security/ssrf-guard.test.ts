/**
 * The SSRF guard against the encodings a probe used to reach loopback from a workspace host, the
 * metadata and private ranges, redirects, DNS rebinding, and the allow-list that admits trusted
 * private hosts (the emulator on 127.0.0.1).
 */

import { lookup } from 'node:dns/promises';
import { type Agent, createServer, get, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  guardedDispatcher,
  guardedFetch,
  guardedNodeAgents,
  isPublicAddress,
  type LookupAll,
  OutboundAllowList,
  OutboundUrlRefusedError,
  publicOnlyAgent,
  validateOutboundUrl,
} from 'setpoint/security/ssrf-guard';
import { fetch, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A resolver with fixed answers, as a hosts file or a hostile DNS server would give them. */
function fixedLookup(answers: Record<string, string[] | (() => string[])>): LookupAll {
  return async (hostname) => {
    const answer = answers[hostname];
    if (!answer) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return (typeof answer === 'function' ? answer() : answer).map((address) => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
  };
}

async function refusalOf(promise: Promise<unknown>): Promise<OutboundUrlRefusedError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(OutboundUrlRefusedError);
    return error as OutboundUrlRefusedError;
  }
  throw new Error('expected the guard to refuse');
}

interface Listener {
  server: Server;
  port: number;
  requests: IncomingHttpHeaders[];
}

async function listen(answer: (port: number) => { status: number; location?: string }): Promise<Listener> {
  const requests: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    requests.push(req.headers);
    const { status, location } = answer((server.address() as AddressInfo).port);
    res.writeHead(status, location ? { location } : {});
    res.end('listener body');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, requests };
}

describe('configuration-time validation', () => {
  // A hosts-file name beside the system resolver (which answers `localhost` itself).
  const named = fixedLookup({ 'workspace.corp.example': ['127.0.0.1'] });
  const hostsFile: LookupAll = (hostname) =>
    hostname === 'workspace.corp.example' ? named(hostname) : lookup(hostname, { all: true });
  const refused: Array<[string, RegExp]> = [
    ['http://127.0.0.1:18099', /loopback/],
    ['http://[::1]:18099', /loopback/],
    ['http://localhost:18099', /localhost resolves to .* loopback/],
    ['http://2130706433:18099', /127\.0\.0\.1 is a loopback/],
    ['http://0x7f000001:18099', /127\.0\.0\.1 is a loopback/],
    ['http://127.1:18099', /127\.0\.0\.1 is a loopback/],
    ['http://[::ffff:127.0.0.1]:18099', /loopback/],
    ['http://workspace.corp.example:18099', /resolves to 127\.0\.0\.1, which is a loopback/],
    ['http://169.254.169.254/latest/meta-data', /link-local/],
    ['http://[fd00:ec2::254]/latest/meta-data', /unique-local/],
    ['http://[fe80::1]/', /link-local/],
    ['http://10.1.2.3/', /private/],
    ['http://172.20.0.1/', /private/],
    ['http://192.168.1.1/', /private/],
    ['http://100.64.0.1/', /CGNAT/],
    ['http://0.0.0.0:80/', /unspecified/],
    ['http://[::]/', /unspecified/],
    ['http://224.0.0.1/', /multicast/],
    ['http://[64:ff9b::7f00:1]/', /loopback/],
    ['http://[64:ff9b::a9fe:a9fe]/', /link-local/],
    ['http://[2002:7f00:1::]/', /loopback/],
  ];
  for (const [url, why] of refused) {
    it(`refuses ${url}`, async () => {
      const error = await refusalOf(validateOutboundUrl(url, { lookup: hostsFile }));
      expect(error.reason).toBe('address');
      expect(error.code).toBe('OUTBOUND_URL_REFUSED');
      expect(error.message).toMatch(why);
      // the message names the setting and an entry; that entry, set, admits the URL
      const entry = /SETPOINT_OUTBOUND_ALLOW_LIST=(\S+) /.exec(error.message)?.[1];
      expect(entry).toBeDefined();
      await expect(
        validateOutboundUrl(url, { lookup: hostsFile, allow: OutboundAllowList.parse(entry!) }),
      ).resolves.toBeInstanceOf(URL);
    });
  }

  it('refuses schemes other than http(s), unless the caller allows them', async () => {
    for (const url of [
      'file:///etc/passwd',
      'gopher://example.com:70/x',
      'javascript:alert(1)',
      'ftp://example.com/',
    ]) {
      expect((await refusalOf(validateOutboundUrl(url))).reason, url).toBe('scheme');
    }
    expect((await refusalOf(validateOutboundUrl('s3://bucket/key'))).message).toContain('s3:');
    await expect(validateOutboundUrl('s3://bucket/key', { schemes: ['s3:'] })).resolves.toBeInstanceOf(URL);
  });

  it('refuses embedded credentials, unresolvable hosts and non-URLs', async () => {
    const lookup = fixedLookup({});
    expect((await refusalOf(validateOutboundUrl('https://admin:pw@example.com/'))).reason).toBe(
      'credentials',
    );
    expect((await refusalOf(validateOutboundUrl('https://nowhere.example/', { lookup }))).reason).toBe(
      'unresolvable',
    );
    expect((await refusalOf(validateOutboundUrl('not a url'))).reason).toBe('invalid');
  });

  it('accepts a host that resolves to public addresses only', async () => {
    const lookup = fixedLookup({
      'dbc-1.cloud.databricks.com': ['52.27.216.188', '2600:1f14::1'],
      'mixed.example': ['52.27.216.188', '10.0.0.7'],
    });
    const url = await validateOutboundUrl('https://dbc-1.cloud.databricks.com/api/2.1/jobs/list', { lookup });
    expect(url.hostname).toBe('dbc-1.cloud.databricks.com');
    expect((await refusalOf(validateOutboundUrl('https://mixed.example/', { lookup }))).message).toMatch(
      /10\.0\.0\.7, which is a private/,
    );
  });

  it('admits allow-listed addresses, networks and host names', async () => {
    const lookup = fixedLookup({ 'minio.internal': ['10.0.0.5'], 'emulator.local': ['127.0.0.1'] });
    const allow = OutboundAllowList.parse('127.0.0.1, 10.0.0.0/8, emulator.local');
    for (const url of [
      'http://127.0.0.1:8080',
      'http://10.9.9.9',
      'http://minio.internal:9000',
      'http://emulator.local',
    ]) {
      await expect(validateOutboundUrl(url, { allow, lookup }), url).resolves.toBeInstanceOf(URL);
    }
    expect((await refusalOf(validateOutboundUrl('http://127.0.0.2', { allow }))).reason).toBe('address');
    expect((await refusalOf(validateOutboundUrl('http://169.254.169.254', { allow }))).reason).toBe(
      'address',
    );
    expect(() => OutboundAllowList.parse('10.0.0.0/40')).toThrow(/prefix/);
    expect(() => OutboundAllowList.parse('http://x')).toThrow(/neither/);
    expect(() => OutboundAllowList.parse('127.0.0.1:70000')).toThrow(/port/);
  });

  it('admits an entry with a port on that port only', async () => {
    const lookup = fixedLookup({ 'minio.internal': ['10.0.0.5'] });
    const allow = OutboundAllowList.parse('127.0.0.1:8080, [::1]:8025, minio.internal:9000, 10.1.0.0/16:443');
    for (const url of [
      'http://127.0.0.1:8080',
      'http://[::1]:8025',
      'http://minio.internal:9000',
      'https://10.1.2.3',
    ]) {
      await expect(validateOutboundUrl(url, { allow, lookup }), url).resolves.toBeInstanceOf(URL);
    }
    for (const url of [
      'http://127.0.0.1:8081',
      'http://127.0.0.1',
      'http://[::1]:8080',
      'http://minio.internal:9001',
      'http://10.1.2.3',
    ]) {
      const refusal = await refusalOf(validateOutboundUrl(url, { allow, lookup }));
      expect(refusal.reason, url).toBe('address');
      expect(refusal.message, url).toMatch(/\(port \d+\)/);
    }
  });

  it('classifies NAT64 and mapped forms by the IPv4 address they carry', () => {
    expect(isPublicAddress('64:ff9b::7f00:1')).toBe(false);
    expect(isPublicAddress('::ffff:10.0.0.1')).toBe(false);
    expect(isPublicAddress('64:ff9b::808:808')).toBe(true);
    expect(isPublicAddress('2606:4700::1111')).toBe(true);
  });
});

describe('request time', () => {
  let target: Listener;
  let redirector: Listener;
  let toMetadata: Listener;
  const emulator = OutboundAllowList.parse('127.0.0.1');

  beforeAll(async () => {
    target = await listen(() => ({ status: 200 }));
    redirector = await listen(() => ({ status: 302, location: `http://localhost:${target.port}/next` }));
    toMetadata = await listen(() => ({ status: 302, location: 'http://[::1]:9/latest/meta-data' }));
  });

  afterAll(async () => {
    for (const listener of [target, redirector, toMetadata]) {
      await new Promise((resolve) => listener.server.close(resolve));
    }
  });

  it('never connects to a loopback literal, even through a dispatcher alone', async () => {
    const before = target.requests.length;
    const url = `http://127.0.0.1:${target.port}/api/2.0/clusters/list`;
    expect(
      (await refusalOf(guardedFetch(url, { headers: { authorization: 'Bearer admin-token' } }))).reason,
    ).toBe('address');
    await expect(request(url, { dispatcher: publicOnlyAgent() })).rejects.toThrow(/loopback/);
    await expect(
      fetch(`http://2130706433:${target.port}/`, { dispatcher: guardedDispatcher() }),
    ).rejects.toThrow();
    expect(target.requests.length).toBe(before);
  });

  it('reaches an allow-listed emulator and sends its credentials there', async () => {
    const response = await guardedFetch(
      `http://127.0.0.1:${target.port}/api`,
      { headers: { authorization: 'Bearer emulator-token' } },
      { allow: emulator },
    );
    expect(response.status).toBe(200);
    expect(target.requests.at(-1)?.authorization).toBe('Bearer emulator-token');
  });

  it('checks every redirect hop: a 302 to a non-allow-listed address is refused', async () => {
    const error = await refusalOf(
      guardedFetch(`http://127.0.0.1:${toMetadata.port}/`, {}, { allow: emulator }),
    );
    expect(error.message).toMatch(/::1 is a loopback/);
    // undici's own redirect following through the guarded dispatcher is refused at connect time too.
    await expect(
      fetch(`http://127.0.0.1:${toMetadata.port}/`, { dispatcher: guardedDispatcher({ allow: emulator }) }),
    ).rejects.toThrow();
  });

  it('drops credentials when a redirect leaves the origin', async () => {
    const allow = OutboundAllowList.parse('127.0.0.1, ::1, localhost');
    const response = await guardedFetch(
      `http://127.0.0.1:${redirector.port}/`,
      { headers: { authorization: 'Bearer admin-token' } },
      { allow },
    );
    expect(response.status).toBe(200);
    expect(redirector.requests.at(-1)?.authorization).toBe('Bearer admin-token');
    expect(target.requests.at(-1)?.authorization).toBeUndefined();
  });

  it('defeats DNS rebinding: the address connected to is the one checked', async () => {
    let calls = 0;
    const lookup = fixedLookup({
      'rebind.example': () => (calls++ === 0 ? ['93.184.216.34'] : ['127.0.0.1']),
    });
    const before = target.requests.length;
    const error = await refusalOf(guardedFetch(`http://rebind.example:${target.port}/`, {}, { lookup }));
    expect(error.message).toMatch(/rebind\.example resolves to 127\.0\.0\.1/);
    expect(calls).toBe(2);
    expect(target.requests.length).toBe(before);
  });

  it('guards node:http clients (the AWS SDK) the same way', async () => {
    const status = (url: string, agent: Agent) =>
      new Promise<number>((resolve, reject) => {
        get(url, { agent }, (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        }).on('error', reject);
      });
    const before = target.requests.length;
    const { httpAgent } = guardedNodeAgents();
    await expect(status(`http://127.0.0.1:${target.port}/bucket`, httpAgent)).rejects.toThrow(/loopback/);
    await expect(status(`http://localhost:${target.port}/bucket`, httpAgent)).rejects.toThrow(/loopback/);
    expect(target.requests.length).toBe(before);
    const allowed = guardedNodeAgents({ allow: emulator });
    expect(await status(`http://127.0.0.1:${target.port}/bucket`, allowed.httpAgent)).toBe(200);
    httpAgent.destroy();
    allowed.httpAgent.destroy();
  });
});
