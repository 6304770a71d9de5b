import {
  alertDestinationCreateSchema,
  alertDestinationList,
  alertDestinationSchema,
  alertDestinationUpdateSchema,
  alertRuleCreateSchema,
  alertRuleList,
  alertRuleSchema,
  alertRuleUpdateSchema,
  idParams,
  notificationList,
  notificationSchema,
  type notificationStatuses,
  pageQuery,
} from '@setpoint/api-contract';
import { ForbiddenError } from '@setpoint/foundation/errors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type {
  AlertDestinationRow,
  AlertRuleRow,
  NotificationRow,
} from '../../service/alerts/alert-repository.js';
import type { AlertService } from '../../service/alerts/alert-service.js';
import { principalOf } from '../../service/auth/principal.js';

const bearer = [{ bearerAuth: [] }];

interface StoredSettings {
  target: string;
  host?: string;
  port?: number;
  tls?: 'starttls' | 'tls' | 'none';
  from?: string;
  to?: string[];
}

/** A destination as the API shows it: where it goes, never its URL, signing secret or SMTP credentials. */
function presentDestination(row: AlertDestinationRow, signsIn: (row: AlertDestinationRow) => boolean) {
  const settings = JSON.parse(row.settings) as StoredSettings;
  return {
    id: row.id,
    name: row.name,
    kind: row.kind as 'slack' | 'webhook' | 'email',
    target: settings.target,
    max_per_hour: row.max_per_hour,
    ...(row.kind === 'email'
      ? {
          email: {
            smtp_host: settings.host ?? '',
            smtp_port: Number(settings.port),
            tls: settings.tls ?? 'starttls',
            from: settings.from ?? '',
            to: settings.to ?? [],
            signs_in: signsIn(row),
          },
        }
      : {}),
    created_at: row.created_at,
    created_by: row.created_by,
    updated_at: row.updated_at === null ? null : Number(row.updated_at),
    updated_by: row.updated_by,
  };
}

const presentRule = (row: AlertRuleRow) => ({
  id: row.id,
  project_id: row.project_id,
  event: row.event as z.infer<typeof alertRuleSchema>['event'],
  destination_id: row.destination_id,
  params: JSON.parse(row.params) as z.infer<typeof alertRuleSchema>['params'],
  enabled: row.enabled === 1,
  created_at: row.created_at,
  created_by: row.created_by,
});

const presentNotification = (row: NotificationRow) => ({
  id: row.id,
  rule_id: row.rule_id,
  destination_id: row.destination_id,
  project_id: row.project_id,
  event: row.event as z.infer<typeof alertRuleSchema>['event'],
  title: row.title,
  detail: JSON.parse(row.detail) as Record<string, unknown>,
  status: row.status as (typeof notificationStatuses)[number],
  error: row.error,
  attempts: Number(row.attempts),
  next_attempt_at: row.next_attempt_at === null ? null : Number(row.next_attempt_at),
  created_at: row.created_at,
});

function requireAdmin(request: Parameters<typeof principalOf>[0], what: string) {
  const principal = principalOf(request);
  if (principal.role !== 'admin') throw new ForbiddenError(`only admins may ${what}`);
  return principal;
}

/** Alert destinations and rules (admins change them; everyone signed in reads), and the notifications sent. */
export function alertRoutes(alerts: AlertService): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/api/v1/alerts/destinations',
      {
        schema: {
          tags: ['alerts'],
          summary: 'Alert destinations (never their URLs or secrets)',
          security: bearer,
          response: { 200: alertDestinationList },
        },
      },
      async () => {
        const items = (await alerts.listDestinations()).map((row) => presentDestination(row, alerts.signsIn));
        return { items, total: items.length, limit: items.length, offset: 0 };
      },
    );

    app.post(
      '/api/v1/alerts/destinations',
      {
        schema: {
          tags: ['alerts'],
          summary: 'Add a Slack incoming webhook or a signed generic webhook (admins only)',
          security: bearer,
          body: alertDestinationCreateSchema,
          response: { 201: alertDestinationSchema },
        },
      },
      async (request, reply) => {
        const principal = requireAdmin(request, 'add alert destinations');
        const row = await alerts.createDestination(request.body, principal.actor);
        return reply.status(201).send(presentDestination(row, alerts.signsIn));
      },
    );

    app.patch(
      '/api/v1/alerts/destinations/:id',
      {
        schema: {
          tags: ['alerts'],
          summary:
            'Rename a destination, change its hourly limit, or replace its URL, signing secret or mail settings (admins only; credentials stay write-only)',
          security: bearer,
          params: idParams,
          body: alertDestinationUpdateSchema,
          response: { 200: alertDestinationSchema },
        },
      },
      async (request) => {
        const principal = requireAdmin(request, 'change alert destinations');
        const row = await alerts.updateDestination(request.params.id, request.body, principal.actor);
        return presentDestination(row, alerts.signsIn);
      },
    );

    app.delete(
      '/api/v1/alerts/destinations/:id',
      {
        schema: {
          tags: ['alerts'],
          summary: 'Delete a destination and its rules (admins only)',
          security: bearer,
          params: idParams,
        },
      },
      async (request, reply) => {
        const principal = requireAdmin(request, 'delete alert destinations');
        await alerts.deleteDestination(request.params.id, principal.actor);
        return reply.status(204).send();
      },
    );

    app.get(
      '/api/v1/alerts/rules',
      {
        schema: {
          tags: ['alerts'],
          summary: 'Alert rules, optionally those that cover one project',
          security: bearer,
          querystring: z.object({ project_id: z.string().min(1).optional() }),
          response: { 200: alertRuleList },
        },
      },
      async (request) => {
        const items = (await alerts.listRules(request.query.project_id)).map(presentRule);
        return { items, total: items.length, limit: items.length, offset: 0 };
      },
    );

    app.post(
      '/api/v1/alerts/rules',
      {
        schema: {
          tags: ['alerts'],
          summary: 'Add a rule for the organization (project_id null) or one project (admins only)',
          security: bearer,
          body: alertRuleCreateSchema,
          response: { 201: alertRuleSchema },
        },
      },
      async (request, reply) => {
        const principal = requireAdmin(request, 'add alert rules');
        return reply.status(201).send(presentRule(await alerts.createRule(request.body, principal.actor)));
      },
    );

    app.patch(
      '/api/v1/alerts/rules/:id',
      {
        schema: {
          tags: ['alerts'],
          summary:
            'Turn a rule on or off, point it at another destination or change its parameters (admins only)',
          security: bearer,
          params: idParams,
          body: alertRuleUpdateSchema,
          response: { 200: alertRuleSchema },
        },
      },
      async (request) => {
        const principal = requireAdmin(request, 'change alert rules');
        return presentRule(await alerts.updateRule(request.params.id, request.body, principal.actor));
      },
    );

    app.delete(
      '/api/v1/alerts/rules/:id',
      {
        schema: {
          tags: ['alerts'],
          summary: 'Delete a rule (admins only)',
          security: bearer,
          params: idParams,
        },
      },
      async (request, reply) => {
        const principal = requireAdmin(request, 'delete alert rules');
        await alerts.deleteRule(request.params.id, principal.actor);
        return reply.status(204).send();
      },
    );

    app.get(
      '/api/v1/notifications',
      {
        schema: {
          tags: ['alerts'],
          summary:
            'Notifications, newest first: sent, failed (with the reason) or held back by the hourly limit',
          security: bearer,
          querystring: pageQuery.extend({ project_id: z.string().min(1).optional() }),
          response: { 200: notificationList },
        },
      },
      async (request) => {
        const { limit, offset, project_id: projectId } = request.query;
        const page = await alerts.notifications({ limit, offset, ...(projectId ? { projectId } : {}) });
        return { items: page.rows.map(presentNotification), total: page.total, limit, offset };
      },
    );

    app.post(
      '/api/v1/notifications/:id/retry',
      {
        schema: {
          tags: ['alerts'],
          summary:
            'Send a PARKED or FAILED notification again, now (admins only); answers it as it stands after the attempt',
          security: bearer,
          params: idParams,
          response: { 200: notificationSchema },
        },
      },
      async (request) => {
        const principal = requireAdmin(request, 'send notifications again');
        return presentNotification(await alerts.retryNotification(request.params.id, principal.actor));
      },
    );
  };
}
