import {
  type AlertEvent,
  type alertDestinationCreateSchema,
  type alertDestinationUpdateSchema,
  type alertRuleCreateSchema,
  type alertRuleUpdateSchema,
  retryableNotificationStatuses,
} from '@setpoint/api-contract';
import { ConflictError, NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import { countOf } from '@setpoint/foundation/words';
import { slaHealthWindow } from '@setpoint/insights';
import type { z } from 'zod';
import type { Logger } from '../../logging/logger.js';
import type { SecretBox } from '../../security/secret-box.js';
import {
  type OutboundPolicy,
  resolveOutboundEndpoint,
  validateOutboundUrl,
} from '../../security/ssrf-guard.js';
import { newId } from '../../store/ids.js';
import type { AuditEntry } from '../audit/audit-repository.js';
import { type Finding, type RuleParams, type RunFacts, runFinding } from './alert-conditions.js';
import {
  type AlertMessage,
  type DestinationTarget,
  deliver,
  type EmailTarget,
  isTransientFailure,
  smtpUrl,
} from './alert-delivery.js';
import type {
  AlertDestinationRow,
  AlertRepository,
  AlertRuleRow,
  NotificationRow,
} from './alert-repository.js';

export type DestinationInput = z.infer<typeof alertDestinationCreateSchema>;
export type DestinationUpdate = z.infer<typeof alertDestinationUpdateSchema>;
export type RuleInput = z.infer<typeof alertRuleCreateSchema>;
export type RuleUpdate = z.infer<typeof alertRuleUpdateSchema>;

const hourMs = 3_600_000;
/** The audit action a platform records when it finds a project's cluster edited outside Setpoint. */
export const externalChangeAction = 'external_change';
/** The audit action the apply core records when a learning run starts waiting for a person's approval. */
export const approvalNeededAction = 'approval_needed';
/** Rules look back this far at most, so a new rule on an old fleet does not replay its history. */
const lookbackMs = 7 * 24 * hourMs;
const runEvents: AlertEvent[] = ['sla_missed', 'sla_at_risk', 'cost_spike'];
/** Each evaluation re-reads this much of the previous one: a change committed late is still seen once. */
const overlapMs = 60_000;

/** Deliveries of one notification at most; then it is PARKED with its last error. */
export const maxDeliveryAttempts = 5;
/** Wait before attempt n+1: 1, 2, 4, 8 minutes… (from a base of one minute) at most an hour. */
export const retryDelayMs = (attempts: number, baseMs = 60_000) =>
  Math.min(hourMs, baseMs * 2 ** (attempts - 1));

/** Which parked queue jobs each event covers. */
const parkedKinds: Partial<Record<AlertEvent, (kind: string) => boolean>> = {
  collection_parked: (kind) => kind.endsWith('.collect') || kind === 'run.ingest',
  apply_failed: (kind) => kind.endsWith('.apply') || kind.endsWith('.revert'),
};

interface Deps {
  alerts: AlertRepository;
  secretBox: SecretBox;
  outboundPolicy: OutboundPolicy;
  logger?: Pick<Logger, 'warn'>;
  /** The first wait before a failed delivery is tried again (doubling each time); a minute by default. */
  retryBaseMs?: number;
  /** Changes to destinations and rules, and notifications sent again by hand, go to the audit trail. */
  audit?: { record(entry: AuditEntry): Promise<void> };
}

/** The associated data that binds a destination's secret to its record. */
export const alertSecretScope = (id: string) => `alert_destination:${id}`;

/** What an edit may change on each kind of destination. */
const editableFields: Record<AlertDestinationRow['kind'], readonly (keyof DestinationUpdate)[]> = {
  slack: ['name', 'max_per_hour', 'url'],
  webhook: ['name', 'max_per_hour', 'url', 'signing_secret'],
  email: ['name', 'max_per_hour', 'smtp_host', 'smtp_port', 'tls', 'from', 'to', 'username', 'password'],
};
/** Fields whose values are credentials: an edit records that they were replaced, never what to. */
const writeOnlyFields: readonly (keyof DestinationUpdate)[] = [
  'url',
  'signing_secret',
  'username',
  'password',
];

interface StoredSecret {
  url?: string;
  signingSecret?: string;
  username?: string;
  password?: string;
}

function targetText(url: string): string {
  return new URL(url).origin;
}

function paramsOf(rule: AlertRuleRow): RuleParams {
  const stored = JSON.parse(rule.params) as {
    threshold_pct?: number;
    window_runs?: number;
    at_risk_fraction?: number;
  };
  return {
    thresholdPct: stored.threshold_pct ?? 20,
    windowRuns: stored.window_runs ?? 5,
    atRiskFraction: stored.at_risk_fraction ?? 0.9,
  };
}

const runtimeMinutes = (run: { started_at: number | null; ended_at: number | null }) =>
  run.started_at !== null && run.ended_at !== null ? (run.ended_at - run.started_at) / 60_000 : null;
/** The run's cost, or null when not costed or still pending its bill (its stored 0 is no cost). */
export const costOf = (cost: string | null) => {
  const stored = cost ? (JSON.parse(cost) as { totalUsd?: number; pending?: unknown }) : null;
  return stored && !stored.pending ? (stored.totalUsd ?? null) : null;
};
const factsOf = (run: {
  id: string;
  project_id: string;
  status: string | null;
  started_at: number | null;
  ended_at: number | null;
  cost: string | null;
}): RunFacts => ({
  id: run.id,
  projectId: run.project_id,
  status: run.status,
  runtimeMinutes: runtimeMinutes(run),
  costUsd: costOf(run.cost),
});

/**
 * Alert rules and destinations, and the evaluation that turns what happened (runs, phase changes,
 * parked jobs) into notifications: each at most once per rule (a unique de-duplication key), at most
 * `max_per_hour` sent per destination (the rest are recorded as RATE_LIMITED).
 */
export function createAlertService(deps: Deps) {
  const { alerts, secretBox } = deps;
  const audited = async (entry: AuditEntry) => {
    await deps.audit?.record(entry);
  };
  /** The project a rule covers, under the key the audit trail files an entry by. */
  const ruleScope = (projectId: string | null) => (projectId === null ? {} : { projectId });

  function secretOf(row: AlertDestinationRow): StoredSecret {
    if (row.secret === null) throw new Error(`alert destination ${row.id} has no stored credentials`);
    return JSON.parse(secretBox.decrypt(row.secret, alertSecretScope(row.id))) as StoredSecret;
  }

  function targetOf(row: AlertDestinationRow): DestinationTarget {
    if (row.secret === null) throw new Error(`alert destination ${row.id} has no stored credentials`);
    const secret = secretOf(row);
    if (row.kind === 'email') {
      const settings = JSON.parse(row.settings) as Omit<EmailTarget, 'kind' | 'username' | 'password'>;
      return {
        kind: 'email',
        host: settings.host,
        port: settings.port,
        tls: settings.tls,
        from: settings.from,
        to: settings.to,
        ...(secret.username ? { username: secret.username, password: secret.password ?? '' } : {}),
      };
    }
    return row.kind === 'webhook'
      ? { kind: 'webhook', url: secret.url ?? '', signingSecret: secret.signingSecret ?? '' }
      : { kind: 'slack', url: secret.url ?? '' };
  }

  /**
   * One delivery attempt: SENT, or for a transient failure RETRYING with the next time (PARKED after
   * `maxDeliveryAttempts`, or at once when `retryLater` is false), or FAILED for a failure retrying cannot fix. The last error is kept.
   */
  async function attempt(
    row: NotificationRow,
    destination: AlertDestinationRow,
    attempts: number,
    now: number,
    retryLater = true,
  ) {
    const message: AlertMessage = {
      notificationId: row.id,
      event: row.event,
      projectId: row.project_id,
      title: row.title,
      detail: JSON.parse(row.detail) as Record<string, unknown>,
      createdAt: row.created_at,
    };
    try {
      await deliver(targetOf(destination), message, deps.outboundPolicy);
      await alerts.settleNotification(row.id, 'SENT', null, { attempts, nextAttemptAt: null });
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      deps.logger?.warn({ destination: destination.id, reason, attempts }, 'alert delivery failed');
      if (!isTransientFailure(error))
        return alerts.settleNotification(row.id, 'FAILED', reason, { attempts, nextAttemptAt: null });
      if (!retryLater || attempts >= maxDeliveryAttempts)
        return alerts.settleNotification(row.id, 'PARKED', reason, { attempts, nextAttemptAt: null });
      await alerts.settleNotification(row.id, 'RETRYING', reason, {
        attempts,
        nextAttemptAt: now + retryDelayMs(attempts, deps.retryBaseMs),
      });
    }
  }

  /** Tries again every notification whose retry is due. */
  async function retryDue(now: number): Promise<void> {
    for (const row of await alerts.retriesDue(now)) {
      const destination = await alerts.findDestination(row.destination_id);
      if (!destination) {
        await alerts.settleNotification(row.id, 'FAILED', 'the destination was deleted');
        continue;
      }
      await attempt(row, destination, row.attempts + 1, now);
    }
  }

  async function notify(rule: AlertRuleRow, finding: Finding, now: number): Promise<boolean> {
    const row: NotificationRow = {
      id: newId('ntf'),
      rule_id: rule.id,
      destination_id: rule.destination_id,
      project_id: finding.projectId,
      event: finding.event,
      dedupe_key: `${rule.id}:${finding.key}`,
      title: finding.title,
      detail: JSON.stringify(finding.detail),
      status: 'SENDING',
      error: null,
      created_at: now,
      attempts: 0,
      next_attempt_at: null,
    };
    if (!(await alerts.insertNotificationOnce(row))) return false;
    const destination = await alerts.findDestination(rule.destination_id);
    if (!destination) {
      await alerts.settleNotification(row.id, 'FAILED', 'the destination was deleted');
      return true;
    }
    if ((await alerts.sentSince(destination.id, now - hourMs)) >= destination.max_per_hour) {
      await alerts.settleNotification(
        row.id,
        'RATE_LIMITED',
        `more than ${destination.max_per_hour} in an hour`,
      );
      return true;
    }
    await attempt(row, destination, 1, now);
    return true;
  }

  async function findingsOf(rule: AlertRuleRow, now: number): Promise<Finding[]> {
    const event = rule.event as AlertEvent;
    const since = Math.max(rule.created_at, now - lookbackMs, (rule.evaluated_until ?? 0) - overlapMs);
    if (runEvents.includes(event)) {
      const params = paramsOf(rule);
      const findings: Finding[] = [];
      for (const run of await alerts.recentRuns(since, rule.project_id)) {
        const settings = JSON.parse(run.project_settings) as { slaMinutes?: number | null };
        const window = event === 'sla_at_risk' ? slaHealthWindow : params.windowRuns;
        const earlier = (await alerts.earlierRuns(run.project_id, run.created_at, window)).map(factsOf);
        const finding = runFinding(event, factsOf(run), earlier, {
          projectName: run.project_name,
          slaMinutes: settings.slaMinutes ?? null,
          params,
        });
        if (finding) findings.push(finding);
      }
      return findings;
    }
    if (event === 'learning_finished') {
      const changes = await alerts.projectChanges('phase', since, rule.project_id);
      return changes
        .filter((change) => (JSON.parse(change.detail) as { from?: string }).from === 'LEARNING')
        .map((change) => ({
          event,
          projectId: change.entity_id,
          key: `${event}:${change.id}`,
          title: `${change.name}: learning finished; Setpoint now optimizes this job`,
          detail: JSON.parse(change.detail) as Record<string, unknown>,
        }));
    }
    if (event === 'external_change') {
      const changes = await alerts.projectChanges(externalChangeAction, since, rule.project_id);
      return changes.map((change) => {
        const detail = JSON.parse(change.detail) as { fields?: string[] };
        return {
          event,
          projectId: change.entity_id,
          key: `${event}:${change.id}`,
          title: `${change.name}: its cluster was changed outside Setpoint (${(detail.fields ?? []).join(', ')}); auto-apply is paused`,
          detail: detail as Record<string, unknown>,
        };
      });
    }
    if (event === 'approval_needed') {
      const asked = await alerts.projectChanges(approvalNeededAction, since, rule.project_id);
      return asked.map((entry) => {
        const detail = JSON.parse(entry.detail) as {
          recommendation_id?: string;
          learning_run?: number | null;
        };
        // a person knows the project and its learning runs; the recommendation's id travels in the detail
        const what = detail.learning_run ? `learning run ${detail.learning_run}` : 'a recommended change';
        return {
          event,
          projectId: entry.entity_id,
          key: `${event}:${entry.id}`,
          title: `${entry.name}: ${what} waits for a person's approval before Setpoint applies it; it is dropped if the next run starts first`,
          detail: detail as Record<string, unknown>,
        };
      });
    }
    const matches = parkedKinds[event];
    if (!matches) return [];
    const parked = await alerts.parkedSince(since);
    return parked.flatMap((job) => {
      if (!matches(job.kind)) return [];
      const payload = JSON.parse(job.payload) as { projectId?: string };
      if (rule.project_id !== null && payload.projectId !== rule.project_id) return [];
      return [
        {
          event,
          projectId: payload.projectId ?? null,
          key: `${event}:${job.id}`,
          title: `${event === 'apply_failed' ? 'Applying a configuration' : 'Collecting a run'} failed after ${countOf(job.attempts, 'attempt')}: ${job.error.slice(0, 200)}`,
          detail: { job_kind: job.kind, attempts: job.attempts, error: job.error.slice(0, 1000) },
        },
      ];
    });
  }

  return {
    async createDestination(
      input: DestinationInput,
      actor: string,
      now = Date.now(),
    ): Promise<AlertDestinationRow> {
      const id = newId('dst');
      let secret: Record<string, unknown>;
      let settings: Record<string, unknown>;
      if (input.kind === 'email') {
        const server = { host: input.smtp_host, port: input.smtp_port };
        await resolveOutboundEndpoint(server.host, server.port, deps.outboundPolicy);
        secret = input.username ? { username: input.username, password: input.password } : {};
        settings = { target: smtpUrl(server), ...server, tls: input.tls, from: input.from, to: input.to };
      } else {
        await validateOutboundUrl(input.url, deps.outboundPolicy);
        secret =
          input.kind === 'webhook'
            ? { url: input.url, signingSecret: input.signing_secret }
            : { url: input.url };
        settings = { target: targetText(input.url) };
      }
      const row: AlertDestinationRow = {
        id,
        name: input.name,
        kind: input.kind,
        settings: JSON.stringify(settings),
        secret: secretBox.encrypt(JSON.stringify(secret), alertSecretScope(id)),
        max_per_hour: input.max_per_hour,
        created_at: now,
        created_by: actor,
        updated_at: null,
        updated_by: null,
      };
      await alerts.insertDestination(row);
      await audited({
        entity: 'alert_destination',
        entityId: id,
        action: 'create',
        actor,
        detail: {
          name: input.name,
          kind: input.kind,
          target: settings.target,
          max_per_hour: input.max_per_hour,
        },
      });
      return row;
    },
    listDestinations: () => alerts.listDestinations(),
    /** Whether an email destination signs in to its server (it has stored SMTP credentials). */
    signsIn: (row: AlertDestinationRow) => row.kind === 'email' && secretOf(row).username !== undefined,
    /**
     * Changes what the update gives and keeps the rest; the kind stays. A new URL or SMTP server is
     * checked like a new destination's. The audit entry lists each changed setting from → to, and the
     * credentials (URL, signing secret, SMTP user and password) only by name.
     */
    async updateDestination(
      id: string,
      update: DestinationUpdate,
      actor: string,
      now = Date.now(),
    ): Promise<AlertDestinationRow> {
      const row = await alerts.findDestination(id);
      if (!row) throw new NotFoundError('DESTINATION_NOT_FOUND', `alert destination ${id} does not exist`);
      const allowed = editableFields[row.kind as keyof typeof editableFields] ?? [];
      const foreign = (Object.keys(update) as (keyof DestinationUpdate)[]).filter(
        (field) => !allowed.includes(field),
      );
      if (foreign.length > 0)
        throw new ValidationError(
          'FIELD_NOT_FOR_KIND',
          `${foreign.join(', ')} cannot be set on a ${row.kind} destination (it takes ${allowed.join(', ')})`,
        );
      const secret = secretOf(row);
      const settings = JSON.parse(row.settings) as Record<string, unknown> & { target: string };
      const cleared: string[] = [];
      if (update.url !== undefined) {
        // the stored signing secret never signs for another target: a new URL brings its own secret
        if (row.kind === 'webhook' && update.url !== secret.url && update.signing_secret === undefined)
          throw new ValidationError(
            'SIGNING_SECRET_REQUIRED',
            'signing_secret: a new url needs a new signing secret in the same request (the stored one is only ever used for the url it was given with)',
          );
        await validateOutboundUrl(update.url, deps.outboundPolicy);
        secret.url = update.url;
        settings.target = targetText(update.url);
      }
      if (update.signing_secret !== undefined) secret.signingSecret = update.signing_secret;
      if (row.kind === 'email') {
        for (const field of ['tls', 'from', 'to'] as const)
          if (update[field] !== undefined) settings[field] = update[field];
        if (update.smtp_host !== undefined || update.smtp_port !== undefined) {
          const server = {
            host: update.smtp_host ?? (settings.host as string),
            port: update.smtp_port ?? (settings.port as number),
          };
          await resolveOutboundEndpoint(server.host, server.port, deps.outboundPolicy);
          const retargeted = server.host !== settings.host || server.port !== settings.port;
          Object.assign(settings, server, { target: smtpUrl(server) });
          // the stored credentials are only ever sent to the server they were given for
          if (retargeted && update.password === undefined && secret.username !== undefined) {
            cleared.push(...(update.username === undefined ? ['username', 'password'] : ['password']));
            delete secret.password;
            if (update.username === undefined) delete secret.username;
          }
        }
        if (update.username === null) {
          delete secret.username;
          delete secret.password;
        } else if (update.username !== undefined) {
          secret.username = update.username;
          if (update.password !== undefined) secret.password = update.password;
        }
      }
      const next: AlertDestinationRow = {
        ...row,
        name: update.name ?? row.name,
        max_per_hour: update.max_per_hour ?? row.max_per_hour,
        settings: JSON.stringify(settings),
        secret: secretBox.encrypt(JSON.stringify(secret), alertSecretScope(id)),
        updated_at: now,
        updated_by: actor,
      };
      await alerts.updateDestination(id, next);
      const before: Record<string, unknown> = {
        ...(JSON.parse(row.settings) as Record<string, unknown>),
        name: row.name,
        max_per_hour: row.max_per_hour,
      };
      const after: Record<string, unknown> = {
        ...settings,
        name: next.name,
        max_per_hour: next.max_per_hour,
      };
      const changes: Record<string, { from: unknown; to: unknown }> = {};
      for (const key of Object.keys(after))
        if (JSON.stringify(before[key]) !== JSON.stringify(after[key]))
          changes[key] = { from: before[key] ?? null, to: after[key] };
      const replaced = writeOnlyFields.filter((field) => update[field] !== undefined);
      await audited({
        entity: 'alert_destination',
        entityId: id,
        action: 'update',
        actor,
        detail: {
          name: next.name,
          kind: row.kind,
          changes,
          ...(replaced.length > 0 ? { credentials_replaced: replaced } : {}),
          ...(cleared.length > 0 ? { credentials_cleared: cleared } : {}),
        },
      });
      return next;
    },
    async deleteDestination(id: string, actor: string): Promise<void> {
      const destination = await alerts.findDestination(id);
      if (!destination || !(await alerts.deleteDestination(id)))
        throw new NotFoundError('DESTINATION_NOT_FOUND', `alert destination ${id} does not exist`);
      await audited({
        entity: 'alert_destination',
        entityId: id,
        action: 'delete',
        actor,
        detail: { name: destination.name, kind: destination.kind },
      });
    },
    async createRule(input: RuleInput, actor: string, now = Date.now()): Promise<AlertRuleRow> {
      if (!(await alerts.findDestination(input.destination_id)))
        throw new NotFoundError(
          'DESTINATION_NOT_FOUND',
          `alert destination ${input.destination_id} does not exist`,
        );
      const row: AlertRuleRow = {
        id: newId('alr'),
        project_id: input.project_id,
        event: input.event,
        destination_id: input.destination_id,
        params: JSON.stringify(input.params),
        enabled: input.enabled ? 1 : 0,
        evaluated_until: null,
        created_at: now,
        created_by: actor,
      };
      await alerts.insertRule(row);
      await audited({
        entity: 'alert_rule',
        entityId: row.id,
        action: 'create',
        actor,
        detail: {
          event: input.event,
          destination_id: input.destination_id,
          params: input.params,
          enabled: input.enabled,
          ...ruleScope(input.project_id),
        },
      });
      return row;
    },
    listRules: (projectId?: string) => alerts.listRules(projectId),
    /**
     * Turns a rule on or off, re-points it or changes its parameters. A rule switched back on starts
     * from now: what happened while it was off is not replayed.
     */
    async updateRule(id: string, update: RuleUpdate, actor: string, now = Date.now()): Promise<AlertRuleRow> {
      const rule = await alerts.findRule(id);
      if (!rule) throw new NotFoundError('RULE_NOT_FOUND', `alert rule ${id} does not exist`);
      if (update.destination_id !== undefined && !(await alerts.findDestination(update.destination_id)))
        throw new NotFoundError(
          'DESTINATION_NOT_FOUND',
          `alert destination ${update.destination_id} does not exist`,
        );
      const patch: Parameters<AlertRepository['updateRule']>[1] = {};
      if (update.enabled !== undefined) {
        patch.enabled = update.enabled ? 1 : 0;
        if (update.enabled && !rule.enabled) patch.evaluated_until = now;
      }
      if (update.destination_id !== undefined) patch.destination_id = update.destination_id;
      if (update.params !== undefined)
        patch.params = JSON.stringify({ ...(JSON.parse(rule.params) as object), ...update.params });
      await alerts.updateRule(id, patch);
      await audited({
        entity: 'alert_rule',
        entityId: id,
        action: 'update',
        actor,
        detail: { event: rule.event, changes: update, ...ruleScope(rule.project_id) },
      });
      return { ...rule, ...patch };
    },
    async deleteRule(id: string, actor: string): Promise<void> {
      const rule = await alerts.findRule(id);
      if (!rule || !(await alerts.deleteRule(id)))
        throw new NotFoundError('RULE_NOT_FOUND', `alert rule ${id} does not exist`);
      await audited({
        entity: 'alert_rule',
        entityId: id,
        action: 'delete',
        actor,
        detail: { event: rule.event, ...ruleScope(rule.project_id) },
      });
    },
    notifications: (page: { limit: number; offset: number; projectId?: string }) =>
      alerts.pageNotifications(page),
    /**
     * Sends a notification Setpoint gave up on (PARKED or FAILED) once more, now, to its rule's
     * destination as it is today: SENT, or back to PARKED / FAILED with the new error. Not counted
     * against the hourly limit (a person asked for it).
     */
    async retryNotification(id: string, actor: string, now = Date.now()): Promise<NotificationRow> {
      const row = await alerts.findNotification(id);
      if (!row) throw new NotFoundError('NOTIFICATION_NOT_FOUND', `notification ${id} does not exist`);
      if (!(retryableNotificationStatuses as readonly string[]).includes(row.status))
        throw new ConflictError(
          'NOTIFICATION_NOT_RETRYABLE',
          `notification ${id} is ${row.status}; only PARKED or FAILED notifications can be sent again`,
        );
      const destination = await alerts.findDestination(row.destination_id);
      if (!destination)
        throw new ConflictError(
          'DESTINATION_NOT_FOUND',
          `the destination of notification ${id} was deleted; it cannot be sent again`,
        );
      // A manual retry that fails again is parked at once rather than queued for more automatic retries.
      await attempt(row, destination, row.attempts + 1, now, false);
      const settled = await alerts.findNotification(id);
      if (!settled) throw new NotFoundError('NOTIFICATION_NOT_FOUND', `notification ${id} does not exist`);
      await audited({
        entity: 'alert_rule',
        entityId: row.rule_id,
        action: 'notification_retried',
        actor,
        detail: {
          notification_id: id,
          from: row.status,
          to: settled.status,
          ...(settled.error ? { error: settled.error } : {}),
          ...ruleScope(row.project_id),
        },
      });
      return settled;
    },
    /** One pass over every enabled rule; answers how many notifications it created. */
    async evaluate(now = Date.now()): Promise<number> {
      await retryDue(now);
      let created = 0;
      for (const rule of await alerts.listRules()) {
        if (!rule.enabled) continue;
        for (const finding of await findingsOf(rule, now)) if (await notify(rule, finding, now)) created += 1;
        await alerts.markEvaluated(rule.id, now);
      }
      return created;
    },
  };
}

export type AlertService = ReturnType<typeof createAlertService>;
