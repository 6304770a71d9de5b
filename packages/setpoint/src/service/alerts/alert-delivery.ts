import { createHmac } from 'node:crypto';
import {
  guardedFetch,
  type OutboundPolicy,
  OutboundUrlRefusedError,
  resolveOutboundEndpoint,
} from '../../security/ssrf-guard.js';

/** A destination with its decrypted credentials, as the sender needs it. */
export interface EmailTarget {
  kind: 'email';
  host: string;
  port: number;
  tls: 'starttls' | 'tls' | 'none';
  username?: string;
  password?: string;
  from: string;
  to: string[];
}

export type DestinationTarget =
  | { kind: 'slack'; url: string }
  | { kind: 'webhook'; url: string; signingSecret: string }
  | EmailTarget;

export interface AlertMessage {
  notificationId: string;
  event: string;
  projectId: string | null;
  title: string;
  detail: Record<string, unknown>;
  createdAt: number;
}

/** A delivery that failed; `transient` ones (5xx, 429, timeouts, refused connections) are retried. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/**
 * Whether a failed delivery is worth trying again: an answer that says the request itself is wrong
 * (HTTP 4xx, SMTP 5xx, an address the SSRF guard refuses) is not; the network and busy servers are.
 */
export function isTransientFailure(error: unknown): boolean {
  if (error instanceof DeliveryError) return error.transient;
  if (error instanceof OutboundUrlRefusedError) return false;
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  if (typeof code === 'number') return code < 500;
  return true;
}

/** `sha256=<hex>` over the exact request body, keyed with the destination's signing secret. */
export function webhookSignature(body: string, signingSecret: string): string {
  return `sha256=${createHmac('sha256', signingSecret).update(body).digest('hex')}`;
}

/** How a mail server is shown (settings, audit): `smtp://host:port`. */
export function smtpUrl(target: Pick<EmailTarget, 'host' | 'port'>): string {
  return `smtp://${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`;
}

async function sendEmail(
  target: EmailTarget,
  message: AlertMessage,
  policy: OutboundPolicy,
  timeoutMs: number,
) {
  // the server's address passes the same SSRF rule as every outbound URL before each delivery, and the
  // client connects to the address checked (credentials never reach a host the rule refuses)
  const endpoint = await resolveOutboundEndpoint(target.host, target.port, policy);
  const { createTransport } = await import('nodemailer');
  const transport = createTransport({
    host: endpoint.address,
    port: endpoint.port,
    ...(endpoint.servername ? { tls: { servername: endpoint.servername } } : {}),
    secure: target.tls === 'tls',
    requireTLS: target.tls === 'starttls',
    ignoreTLS: target.tls === 'none',
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    ...(target.username ? { auth: { user: target.username, pass: target.password ?? '' } } : {}),
  });
  try {
    const facts = Object.entries(message.detail).map(([name, value]) => `${name}: ${String(value)}`);
    await transport.sendMail({
      from: target.from,
      to: target.to,
      subject: `[Setpoint] ${message.title}`,
      text: `${message.title}\n\n${facts.join('\n')}\n\nevent: ${message.event}\nnotification: ${message.notificationId}\n`,
      headers: { 'X-Setpoint-Event': message.event },
    });
  } finally {
    transport.close();
  }
}

function payload(target: DestinationTarget, message: AlertMessage): string {
  if (target.kind === 'slack') {
    const facts = Object.entries(message.detail).map(([name, value]) => `${name}: ${String(value)}`);
    return JSON.stringify({ text: `*Setpoint* — ${message.title}\n${facts.join(' · ')}` });
  }
  return JSON.stringify({
    id: message.notificationId,
    event: message.event,
    project_id: message.projectId,
    title: message.title,
    detail: message.detail,
    created_at: message.createdAt,
  });
}

/** Sends one message; every URL goes through the SSRF guard. Throws with a readable reason on failure. */
export async function deliver(
  target: DestinationTarget,
  message: AlertMessage,
  policy: OutboundPolicy,
  timeoutMs = 10_000,
): Promise<void> {
  if (target.kind === 'email') return sendEmail(target, message, policy, timeoutMs);
  const body = payload(target, message);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (target.kind === 'webhook') {
    headers['x-setpoint-event'] = message.event;
    headers['x-setpoint-signature'] = webhookSignature(body, target.signingSecret);
  }
  const response = await guardedFetch(
    target.url,
    { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) },
    { ...policy, maxRedirects: 0 },
  );
  await response.body?.cancel();
  if (!response.ok)
    throw new DeliveryError(
      `the destination answered HTTP ${response.status}`,
      response.status >= 500 || response.status === 408 || response.status === 429,
    );
}
