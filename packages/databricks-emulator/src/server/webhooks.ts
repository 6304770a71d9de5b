import type { DestinationRecord, EmulatorState, WebhookDelivery } from './emulator-state.js';
import type { FaultInjector } from './faults.js';

export type JobEventType =
  | 'jobs.on_start'
  | 'jobs.on_success'
  | 'jobs.on_failure'
  | 'jobs.on_duration_warning_threshold_exceeded';

/**
 * Posts the generic-webhook payload Databricks documents (one POST per event and destination), with HTTP
 * Basic auth when the destination has a username/password. Delivery is fire-and-forget, as in the real
 * service; every attempt is recorded for the admin endpoint.
 */
export class WebhookSender {
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly state: EmulatorState,
    private readonly faults: FaultInjector,
    private readonly workspaceId: string,
  ) {}

  send(
    eventType: JobEventType,
    destinationIds: readonly string[],
    subject: { runId: number; parentRunId?: number; taskKey?: string; jobId?: number; jobName: string },
    atMs: number,
  ): void {
    for (const id of destinationIds) {
      const destination = this.state.destinations.get(id);
      const webhook = destination?.config.generic_webhook;
      if (!destination || !webhook?.url) continue;
      const payload: Record<string, unknown> = {
        event_type: eventType,
        workspace_id: this.workspaceId,
        ...(subject.taskKey === undefined ? {} : { task: { task_key: subject.taskKey } }),
        run:
          subject.parentRunId === undefined
            ? { run_id: String(subject.runId) }
            : { run_id: String(subject.runId), parent_run_id: String(subject.parentRunId) },
        job: { job_id: subject.jobId === undefined ? '' : String(subject.jobId), name: subject.jobName },
      };
      const delivery: WebhookDelivery = {
        atMs,
        eventType,
        destinationId: id,
        url: webhook.url,
        payload,
        dropped: this.faults.take('drop-webhook', eventType) !== undefined,
      };
      this.state.webhookDeliveries.push(delivery);
      if (delivery.dropped) continue;
      const attempt = this.post(destination, webhook.url, payload, delivery);
      this.inFlight.add(attempt);
      void attempt.finally(() => this.inFlight.delete(attempt));
    }
  }

  /** Resolves when every delivery started so far has completed (or failed). */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  private async post(
    destination: DestinationRecord,
    url: string,
    payload: Record<string, unknown>,
    delivery: WebhookDelivery,
  ): Promise<void> {
    const webhook = destination.config.generic_webhook;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'Databricks-Webhook',
    };
    if (webhook?.username !== undefined || webhook?.password !== undefined) {
      const credentials = Buffer.from(`${webhook.username ?? ''}:${webhook.password ?? ''}`).toString(
        'base64',
      );
      headers.authorization = `Basic ${credentials}`;
    }
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(10_000),
      });
      delivery.status = response.status;
      await response.arrayBuffer();
    } catch (error) {
      delivery.error = error instanceof Error ? error.message : String(error);
    }
  }
}
