import { z } from 'zod';
import { listOf } from './common.js';

/** What an alert rule watches. */
export const alertEvents = [
  'sla_missed',
  'sla_at_risk',
  'cost_spike',
  /** A platform found the project's cluster edited outside Setpoint (and paused auto-apply). */
  'external_change',
  'apply_failed',
  'collection_parked',
  'learning_finished',
] as const;
export type AlertEvent = (typeof alertEvents)[number];

export const alertDestinationKinds = ['slack', 'webhook', 'email'] as const;

const maxPerHour = z.number().int().min(1).max(1000);

/** `POST /api/v1/alerts/destinations`: the URL and signing secret are stored encrypted and never shown again. */
export const alertDestinationCreateSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('slack'),
      name: z.string().min(1).max(100),
      /** The Slack incoming-webhook URL (it is the credential). */
      url: z.string().url().max(2000),
      max_per_hour: maxPerHour.default(30),
    })
    .strict(),
  z
    .object({
      kind: z.literal('webhook'),
      name: z.string().min(1).max(100),
      url: z.string().url().max(2000),
      /** Key of the `x-setpoint-signature: sha256=<hex HMAC of the body>` header. */
      signing_secret: z.string().min(16).max(200),
      max_per_hour: maxPerHour.default(30),
    })
    .strict(),
  z
    .object({
      kind: z.literal('email'),
      name: z.string().min(1).max(100),
      smtp_host: z.string().min(1).max(255),
      smtp_port: z.number().int().min(1).max(65_535).default(587),
      /** `starttls` (required upgrade), `tls` (implicit, port 465) or `none` (a relay on a trusted network). */
      tls: z.enum(['starttls', 'tls', 'none']).default('starttls'),
      /** SMTP credentials, stored encrypted. */
      username: z.string().min(1).max(200).optional(),
      password: z.string().min(1).max(500).optional(),
      from: z.string().email(),
      to: z.array(z.string().email()).min(1).max(50),
      max_per_hour: maxPerHour.default(30),
    })
    .strict(),
]);

/**
 * `PATCH /api/v1/alerts/destinations/:id`: change what is given, keep the rest. The kind cannot change
 * (delete and add instead); a field of another kind is refused. URLs, signing secrets and SMTP
 * credentials stay write-only: give a new one to replace it; the answer never shows it.
 */
export const alertDestinationUpdateSchema = z
  .object({
    name: z.string().min(1).max(100).optional(),
    max_per_hour: maxPerHour.optional(),
    /** slack, webhook: the new URL (stored encrypted). */
    url: z.string().url().max(2000).optional(),
    /** webhook: the new HMAC key. */
    signing_secret: z.string().min(16).max(200).optional(),
    /** email: the mail server, its port and TLS mode, sender and recipients. */
    smtp_host: z.string().min(1).max(255).optional(),
    smtp_port: z.number().int().min(1).max(65_535).optional(),
    tls: z.enum(['starttls', 'tls', 'none']).optional(),
    from: z.string().email().optional(),
    to: z.array(z.string().email()).min(1).max(50).optional(),
    /** email: new SMTP credentials (both), or null to send without signing in. */
    username: z.string().min(1).max(200).nullable().optional(),
    password: z.string().min(1).max(500).optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'give at least one field to change' })
  .refine((body) => (body.password === undefined ? true : typeof body.username === 'string'), {
    message: 'password needs username',
    path: ['password'],
  });

/** What an email destination sends through and to (its credentials are never shown). */
export const alertEmailSettingsSchema = z.object({
  smtp_host: z.string(),
  smtp_port: z.number().int(),
  tls: z.enum(['starttls', 'tls', 'none']),
  from: z.string(),
  to: z.array(z.string()),
  /** Whether it signs in to the server (the user name and password are write-only). */
  signs_in: z.boolean(),
});

export const alertDestinationSchema = z.object({
  id: z.string(),
  name: z.string(),
  kind: z.enum(alertDestinationKinds),
  /** Where it goes, without path, query or credentials (`https://hooks.slack.com`). */
  target: z.string(),
  max_per_hour: z.number().int(),
  /** email destinations only. */
  email: alertEmailSettingsSchema.optional(),
  created_at: z.number(),
  created_by: z.string(),
  /** The last change, when it was edited after it was added. */
  updated_at: z.number().nullable(),
  updated_by: z.string().nullable(),
});

export const alertDestinationList = listOf(alertDestinationSchema);

/** A rule's parameters; each event reads the ones it needs. */
export const alertRuleParamsSchema = z
  .object({
    /** cost_spike: how far above the mean of the previous runs a run's cost must be, in percent. */
    threshold_pct: z.number().positive().max(1000).default(20),
    /** cost_spike: how many previous runs the mean covers. */
    window_runs: z.number().int().min(1).max(50).default(5),
    /**
     * sla_at_risk: the SLA-hit target — the rule fires when a run takes the share of the project's last 10
     * runs that met the SLA below it (the projects table's SLA health).
     */
    at_risk_fraction: z.number().gt(0).lt(1).default(0.9),
  })
  .strict();

export const alertRuleCreateSchema = z
  .object({
    /** Null or absent: every project of the organization. */
    project_id: z.string().min(1).nullable().default(null),
    event: z.enum(alertEvents),
    destination_id: z.string().min(1),
    params: alertRuleParamsSchema.default({ threshold_pct: 20, window_runs: 5, at_risk_fraction: 0.9 }),
    enabled: z.boolean().default(true),
  })
  .strict();

/** `PATCH /api/v1/alerts/rules/:id`: turn a rule on or off, point it elsewhere, or change its parameters. */
export const alertRuleUpdateSchema = z
  .object({
    enabled: z.boolean().optional(),
    destination_id: z.string().min(1).optional(),
    /** Merged into the rule's current parameters. */
    params: alertRuleParamsSchema.partial().optional(),
  })
  .strict()
  .refine((body) => Object.keys(body).length > 0, { message: 'give enabled, destination_id or params' });

export const alertRuleSchema = z.object({
  id: z.string(),
  project_id: z.string().nullable(),
  event: z.enum(alertEvents),
  destination_id: z.string(),
  params: alertRuleParamsSchema,
  enabled: z.boolean(),
  created_at: z.number(),
  created_by: z.string(),
});

export const alertRuleList = listOf(alertRuleSchema);

/**
 * SENDING: recorded, delivery in progress (or interrupted by a restart). RETRYING: a transient failure
 * (5xx, 429, timeout, refused connection), tried again at `next_attempt_at` with backoff; PARKED: still
 * failing after the last attempt. FAILED: a failure retrying cannot fix (4xx, a refused address).
 */
export const notificationStatuses = [
  'SENDING',
  'SENT',
  'RETRYING',
  'PARKED',
  'FAILED',
  'RATE_LIMITED',
] as const;

/** Notifications an admin may send again (`POST /api/v1/notifications/:id/retry`): those Setpoint gave up on. */
export const retryableNotificationStatuses: readonly (typeof notificationStatuses)[number][] = [
  'PARKED',
  'FAILED',
];

export const notificationSchema = z.object({
  id: z.string(),
  rule_id: z.string(),
  destination_id: z.string(),
  project_id: z.string().nullable(),
  event: z.enum(alertEvents),
  title: z.string(),
  detail: z.record(z.string(), z.unknown()),
  status: z.enum(notificationStatuses),
  /** The last delivery error. */
  error: z.string().nullable(),
  /** Deliveries tried so far. */
  attempts: z.number().int(),
  next_attempt_at: z.number().nullable(),
  created_at: z.number(),
});

export const notificationList = listOf(notificationSchema);

export type AlertDestinationResource = z.infer<typeof alertDestinationSchema>;
export type AlertRuleResource = z.infer<typeof alertRuleSchema>;
export type NotificationResource = z.infer<typeof notificationSchema>;
