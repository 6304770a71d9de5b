import type { Agent as HttpAgent } from 'node:http';
import type { Agent as HttpsAgent } from 'node:https';
import { OutboundAllowList } from './address-policy.js';
import {
  guardedDispatcher,
  guardedFetch,
  guardedNodeAgents,
  type LookupAll,
  type OutboundPolicy,
  OutboundUrlRefusedError,
  validateOutboundUrl,
} from './ssrf-guard.js';

/**
 * The one SSRF policy of a running Setpoint, built from the `outboundAllowList` setting, and the
 * clients that apply it: every request to a host a user configured (a workspace's Databricks host,
 * its S3 endpoint, an `eventlog_uri`) goes through `fetch` or `nodeAgents`, so the address rule is
 * applied when each connection is made and on every redirect hop.
 */
export interface OutboundGuard {
  readonly allowList: OutboundAllowList;
  /**
   * Configuration-time check of a URL a user stores (`field` names it in the error): scheme, no
   * embedded credentials, and every address its host resolves to public or allow-listed. A host that
   * does not resolve now is accepted: the connect-time rule refuses it later if it then resolves to a
   * private address.
   */
  assertConfigurable(url: string, field: string): Promise<void>;
  /** fetch through the guard: connect-time check, redirects followed by hand and each hop checked. */
  fetch(url: string, init?: RequestInit): Promise<Response>;
  /** node:http agents with the connect-time rule (the AWS SDK's request handler). */
  nodeAgents(): { httpAgent: HttpAgent; httpsAgent: HttpsAgent };
}

export function createOutboundGuard(setting: string, options: { lookup?: LookupAll } = {}): OutboundGuard {
  const allowList = OutboundAllowList.parse(setting);
  const policy: OutboundPolicy = { allow: allowList, ...(options.lookup && { lookup: options.lookup }) };
  const dispatcher = guardedDispatcher(policy);
  let agents: ReturnType<typeof guardedNodeAgents> | undefined;
  return {
    allowList,
    async assertConfigurable(url, field) {
      try {
        await validateOutboundUrl(url, policy);
      } catch (error) {
        if (error instanceof OutboundUrlRefusedError && error.reason !== 'unresolvable') {
          throw new OutboundUrlRefusedError(error.reason, `${field}: ${error.message}`);
        }
        if (!(error instanceof OutboundUrlRefusedError)) throw error;
      }
    },
    async fetch(url, init) {
      const response = await guardedFetch(url, init as never, policy, dispatcher);
      return response as unknown as Response;
    },
    nodeAgents() {
      agents ??= guardedNodeAgents(policy);
      return agents;
    },
  };
}
