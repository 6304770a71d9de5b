import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningServer } from '../server/start-server.js';

/**
 * The demo's alert receiver: a webhook on the loopback that takes what Setpoint sends, as a team's chat
 * hook would, so the demo's `approval_needed` alerts are delivered (the Notifications page lists them as
 * sent) and each is logged where the demo was started.
 */
export interface AlertReceiver {
  /** `host:port`, for the outbound allow-list (the SSRF rule refuses the loopback otherwise). */
  host: string;
  url: string;
  /** Alerts received so far. */
  received(): number;
  close(): Promise<void>;
}

/** Longest body read from a delivery; an alert is a few hundred bytes. */
const maxBodyBytes = 64 * 1024;

export async function startAlertReceiver(log: (line: string) => void): Promise<AlertReceiver> {
  let count = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => {
      if (body.length < maxBodyBytes) body += chunk;
    });
    request.on('end', () => {
      count += 1;
      response.end('ok');
      const title = titleOf(body);
      if (title) log(`alert: ${title}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/setpoint-alerts`,
    received: () => count,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function titleOf(body: string): string | undefined {
  try {
    const parsed = JSON.parse(body) as { title?: unknown };
    return typeof parsed.title === 'string' ? parsed.title : undefined;
  } catch {
    return undefined;
  }
}

/** An `approval_needed` rule for each project, sent to the demo's receiver. */
export async function alertOnApprovals(
  server: RunningServer,
  receiver: AlertReceiver,
  projectIds: readonly string[],
): Promise<void> {
  if (projectIds.length === 0) return;
  const alerts = server.services.alerts;
  const destination = await alerts.createDestination(
    {
      kind: 'webhook',
      name: 'Demo team hook',
      url: receiver.url,
      signing_secret: randomBytes(24).toString('base64url'),
      max_per_hour: 60,
    },
    'demo',
  );
  for (const projectId of projectIds)
    await alerts.createRule(
      {
        project_id: projectId,
        event: 'approval_needed',
        destination_id: destination.id,
        params: { threshold_pct: 20, window_runs: 5, at_risk_fraction: 0.9 },
        enabled: true,
      },
      'demo',
    );
}
