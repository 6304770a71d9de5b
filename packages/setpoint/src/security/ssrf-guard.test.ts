import { request } from 'undici';
import { describe, expect, it } from 'vitest';
import { OutboundAllowList } from './address-policy.js';
import { assertFetchableUrl, isPublicAddress, publicOnlyAgent } from './ssrf-guard.js';

describe('SSRF guard', () => {
  it('classifies loopback, private, link-local and mapped addresses as non-public', () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
    for (const address of ['8.8.8.8', '52.216.0.1', '2606:4700::1111']) {
      expect(isPublicAddress(address), address).toBe(true);
    }
  });

  it('accepts only s3:// and https:// URLs without credentials or private literals', () => {
    expect(assertFetchableUrl('s3://bucket/logs/eventlog').protocol).toBe('s3:');
    expect(assertFetchableUrl('https://example.com/eventlog').hostname).toBe('example.com');
    expect(() => assertFetchableUrl('http://example.com/x')).toThrow(/s3:\/\/ or https:\/\//);
    expect(() => assertFetchableUrl('https://user:pw@example.com/x')).toThrow(/credentials/);
    expect(() => assertFetchableUrl('https://10.0.0.5/x')).toThrow(/private/);
    expect(() => assertFetchableUrl('http://127.0.0.1:9000/x')).toThrow(/s3:\/\/ or https:\/\//);
    const allow = OutboundAllowList.parse('127.0.0.1');
    expect(assertFetchableUrl('http://127.0.0.1:9000/x', allow).port).toBe('9000');
    expect(() => assertFetchableUrl('http://127.0.0.2:9000/x', allow)).toThrow(/s3:\/\/ or https:\/\//);
  });

  it('refuses at connect time a host name that resolves to loopback', async () => {
    await expect(request('https://localhost:1/eventlog', { dispatcher: publicOnlyAgent() })).rejects.toThrow(
      /loopback/,
    );
  });
});
