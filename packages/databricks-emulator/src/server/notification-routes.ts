import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { invalidParameter, resourceMissing } from './api-errors.js';
import type { EmulatorContext } from './emulator-context.js';
import type { DestinationRecord } from './emulator-state.js';
import { parseWith, queryInt, type RouteKit, registerApi } from './route-kit.js';
import { decodePageToken, encodePageToken } from './run-views.js';
import {
  createDestinationBodySchema,
  type DestinationConfig,
  updateDestinationBodySchema,
} from './schema.js';

const destinationTypes = {
  generic_webhook: 'WEBHOOK',
  email: 'EMAIL',
  slack: 'SLACK',
  microsoft_teams: 'MICROSOFT_TEAMS',
  pagerduty: 'PAGERDUTY',
} as const;

type ConfigKind = keyof typeof destinationTypes;

function configKind(config: DestinationConfig): ConfigKind {
  const kinds = (Object.keys(destinationTypes) as ConfigKind[]).filter((kind) => config[kind] !== undefined);
  if (kinds.length !== 1)
    throw invalidParameter(
      'Config must wrap exactly one of email, slack, microsoft_teams, pagerduty, generic_webhook.',
    );
  return kinds[0]!;
}

/** Secrets are write-only: answers carry `<field>_set` flags instead of the values. */
function configView(config: DestinationConfig): Record<string, unknown> {
  const webhook = config.generic_webhook;
  if (webhook) {
    return {
      generic_webhook: {
        url_set: webhook.url !== undefined,
        username_set: webhook.username !== undefined,
        password_set: webhook.password !== undefined,
      },
    };
  }
  if (config.slack) return { slack: { url_set: config.slack.url !== undefined } };
  if (config.microsoft_teams)
    return { microsoft_teams: { url_set: config.microsoft_teams.url !== undefined } };
  if (config.pagerduty)
    return { pagerduty: { integration_key_set: config.pagerduty.integration_key !== undefined } };
  return { email: config.email ?? {} };
}

function destinationJson(destination: DestinationRecord): Record<string, unknown> {
  return {
    id: destination.id,
    display_name: destination.displayName,
    destination_type: destination.destinationType,
    config: configView(destination.config),
  };
}

export function registerNotificationRoutes(
  app: FastifyInstance,
  kit: RouteKit,
  context: EmulatorContext,
): void {
  const { state } = context;
  const requireDestination = (id: string) => {
    const destination = state.destinations.get(id);
    if (!destination) throw resourceMissing(`Notification destination ${id} does not exist.`);
    return destination;
  };

  registerApi(app, kit, 'POST', '/notification-destinations', ['2.0'], ({ body }) => {
    const request = parseWith(createDestinationBodySchema, body);
    const kind = configKind(request.config);
    const destination: DestinationRecord = {
      id: randomUUID(),
      displayName: request.display_name,
      destinationType: destinationTypes[kind],
      config: request.config,
    };
    state.destinations.set(destination.id, destination);
    return destinationJson(destination);
  });

  registerApi(app, kit, 'GET', '/notification-destinations', ['2.0'], ({ query }) => {
    const pageSize = queryInt(query, 'page_size') ?? 20;
    if (pageSize < 1) throw invalidParameter('page_size must be positive.');
    const offset = decodePageToken(query.page_token);
    const all = [...state.destinations.values()];
    const page = all.slice(offset, offset + pageSize);
    return {
      results: page.map((destination) => ({
        id: destination.id,
        display_name: destination.displayName,
        destination_type: destination.destinationType,
      })),
      ...(offset + pageSize < all.length ? { next_page_token: encodePageToken(offset + pageSize) } : {}),
    };
  });

  registerApi(app, kit, 'GET', '/notification-destinations/:id', ['2.0'], ({ request }) =>
    destinationJson(requireDestination((request.params as { id: string }).id)),
  );

  registerApi(app, kit, 'PATCH', '/notification-destinations/:id', ['2.0'], ({ request, body }) => {
    const destination = requireDestination((request.params as { id: string }).id);
    if (body === undefined || body === null || (typeof body === 'object' && Object.keys(body).length === 0)) {
      throw invalidParameter('The update request has no body: send display_name and/or config.');
    }
    const update = parseWith(updateDestinationBodySchema, body);
    if (update.display_name !== undefined) destination.displayName = update.display_name;
    if (update.config) {
      const kind = configKind(update.config);
      if (destinationTypes[kind] !== destination.destinationType) {
        throw invalidParameter('The destination type of a notification destination cannot be changed.');
      }
      // Secrets left out of an update keep their stored values.
      destination.config =
        kind === 'generic_webhook'
          ? { generic_webhook: { ...destination.config.generic_webhook, ...update.config.generic_webhook } }
          : update.config;
    }
    return destinationJson(destination);
  });

  registerApi(app, kit, 'DELETE', '/notification-destinations/:id', ['2.0'], ({ request }) => {
    const id = (request.params as { id: string }).id;
    requireDestination(id);
    state.destinations.delete(id);
    return {};
  });
}
