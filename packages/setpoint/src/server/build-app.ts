import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import multipart from '@fastify/multipart';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Services } from '../composition/compose-services.js';
import type { Logger } from '../logging/logger.js';
import { rateLimited } from '../service/auth/request-throttles.js';
import { isPublicRoute, registerAuthentication } from './plugins/authentication.js';
import { registerErrorHandler } from './plugins/error-handler.js';
import { registerJsonLimits } from './plugins/json-limits.js';
import { registerOpenApi } from './plugins/openapi.js';
import { registerRequestDeadline } from './plugins/request-deadline.js';
import { registerWebApp } from './plugins/web-app.js';
import { alertRoutes } from './routes/alert-routes.js';
import { apiKeyRoutes } from './routes/api-key-routes.js';
import { applyRoutes, awaitingApprovalOf } from './routes/apply-routes.js';
import { auditRoutes } from './routes/audit-routes.js';
import { authRoutes } from './routes/auth-routes.js';
import { codeRoutes } from './routes/code-routes.js';
import { gradientCompatRoutes } from './routes/compat/gradient-routes.js';
import { connectionRoutes } from './routes/connection-routes.js';
import { formFactorRoutes } from './routes/form-factor-routes.js';
import { healthRoutes } from './routes/health-routes.js';
import { insightsRoutes } from './routes/insights-routes.js';
import { jobRoutes } from './routes/job-routes.js';
import { metricsRoutes } from './routes/metrics-routes.js';
import { organizationRoutes } from './routes/organization-routes.js';
import { projectRoutes } from './routes/project-routes.js';
import { recommendationRoutes } from './routes/recommendation-routes.js';
import { runRoutes } from './routes/run-routes.js';
import { maxClusterReportBytes } from './routes/run-upload.js';
import { sessionRoutes } from './routes/session-routes.js';
import { systemRoutes } from './routes/system-routes.js';
import { userRoutes } from './routes/user-routes.js';
import { workspaceRoutes } from './routes/workspace-routes.js';

export interface AppDependencies {
  services: Services;
  logger: Logger;
  /** Override where the built dashboard is read from (tests). */
  webDir?: string;
  bodyLimitBytes?: number;
}

export interface RouteEntry {
  method: string;
  url: string;
  public: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route registered, for the security tests that must cover all of them. */
    routeTable: RouteEntry[];
  }
}

/**
 * Sent with every response. The dashboard is served from this origin only (scripts and styles are
 * files; style attributes set by the chart library need 'unsafe-inline' for styles); no framing.
 */
export const securityHeaders = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; " +
    "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; " +
    "frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
} as const;

/** Composition root of the HTTP API: plugins, then routes, each route given only what it needs. */
export async function buildApp(deps: AppDependencies): Promise<FastifyInstance> {
  const { services } = deps;
  const { config } = services;
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    // JSON bodies are parsed on the event loop: 1 MiB covers every route but a run submission's cluster
    // report (its route allows 8 MiB); larger is refused with 413 before it is read whole
    bodyLimit: deps.bodyLimitBytes ?? 1024 * 1024,
    trustProxy: trustProxySetting(config.trustProxy),
    // Slow clients cannot hold connections: the whole request (headers and body) must arrive within
    // requestTimeoutSeconds, an idle socket closes after idleTimeoutSeconds (between requests only: a
    // request being handled is answered by its deadline, see request-deadline.ts).
    requestTimeout: config.requestTimeoutSeconds * 1000,
    connectionTimeout: config.idleTimeoutSeconds * 1000,
    keepAliveTimeout: Math.min(config.idleTimeoutSeconds * 1000, 72_000),
    // Node checks those deadlines every 30 s by default, and a client dripping a byte a second was held
    // for up to 90 s past a 5 s timeout: checked every second, it is closed within a second of it.
    http: {
      requestTimeout: config.requestTimeoutSeconds * 1000,
      headersTimeout: Math.min(config.requestTimeoutSeconds, 60) * 1000,
      connectionsCheckingInterval: 1000,
    },
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const routeTable: RouteEntry[] = [];
  app.decorate('routeTable', routeTable);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (method === 'HEAD') continue;
      routeTable.push({ method, url: route.url, public: isPublicRoute(route.url, route.config) });
    }
  });
  registerErrorHandler(app);
  registerRequestDeadline(app, Math.max(config.requestTimeoutSeconds, config.responseTimeoutSeconds));
  registerJsonLimits(app);
  app.addHook('onSend', async (_request, reply) => {
    for (const [name, value] of Object.entries(securityHeaders)) reply.header(name, value);
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    if (!route) return;
    services.metrics.httpDuration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
  if (config.corsOrigins.length > 0) await app.register(cors, { origin: config.corsOrigins });
  await app.register(cookie);
  registerAuthentication(app, services.apiKeys, services.users);
  // The API's budget is per API key or dashboard user (per address before authentication). Health,
  // the dashboard's files and the webhook receiver (its own budget per workspace, after its Basic
  // auth) are not counted here.
  await app.register(rateLimit, {
    hook: 'preHandler',
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    keyGenerator: (request) => request.principal?.keyId ?? request.ip,
    allowList: (request) => {
      const url = request.routeOptions.url ?? '';
      return !(url.startsWith('/api/') || url.startsWith('/v1/')) || url.startsWith('/api/v1/webhooks/');
    },
    errorResponseBuilder: (_request, context) =>
      rateLimited(`rate limit of ${context.max} requests per minute exceeded`, context.ttl / 1000),
  });
  await app.register(multipart, {
    limits: {
      fileSize: config.maxUploadBytes,
      files: config.maxUploadFiles,
      fields: 20,
      fieldSize: maxClusterReportBytes,
      parts: config.maxUploadFiles + 20,
    },
  });
  await registerOpenApi(app);
  await app.register(healthRoutes);
  await app.register(authRoutes(services.apiKeys));
  await app.register(apiKeyRoutes(services.apiKeys));
  await app.register(
    sessionRoutes(services.users, {
      signInFreeFailures: 5,
      secureCookies: config.secureCookies,
      demoSignIn: services.demoSignIn,
    }),
  );
  await app.register(systemRoutes(services.store.dialect, services.projects));
  await app.register(
    projectRoutes(
      services.projects,
      services.insights.projectSummaries,
      awaitingApprovalOf(services.applies),
    ),
  );
  await app.register(insightsRoutes(services.insights));
  await app.register(organizationRoutes(services.organizationSettings));
  await app.register(alertRoutes(services.alerts));
  await app.register(auditRoutes(services.audit));
  await app.register(userRoutes(services.users));
  await app.register(
    runRoutes(services.runs, {
      parseClusterReport: services.parseClusterReport,
      scratchDir: services.scratchDir,
      maxUploadBytes: config.maxUploadBytes,
      maxUploadFiles: config.maxUploadFiles,
      metrics: services.metrics,
    }),
  );
  await app.register(recommendationRoutes(services.recommendations, services.applies, services.proposals));
  await app.register(applyRoutes(services.applies));
  await app.register(
    codeRoutes({ projects: services.projects, sources: services.sources, proposals: services.proposals }),
  );
  await app.register(formFactorRoutes(services.formFactor));
  await app.register(
    workspaceRoutes(services.workspaces, (platform) => services.platforms.named(platform)?.checkSignIn),
  );
  await app.register(connectionRoutes(services.connections));
  for (const platform of services.platforms.entries) await app.register(platform.routes);
  await app.register(
    gradientCompatRoutes({
      parseClusterReport: services.parseClusterReport,
      apiKeys: services.apiKeys,
      projects: services.projects,
      runs: services.runs,
      recommendations: services.recommendations,
      scratchDir: services.scratchDir,
      maxUploadBytes: config.maxUploadBytes,
      maxUploadFiles: config.maxUploadFiles,
    }),
  );
  await app.register(jobRoutes(services.parkedJobs));
  await app.register(metricsRoutes(services.metrics, config.metricsPublic));
  await registerWebApp(app, deps.webDir);
  return app;
}

/**
 * `trustProxy`: empty (direct clients), a hop count (`1` behind one nginx or ALB) or addresses and
 * CIDRs of the proxies (`10.0.0.0/8, 127.0.0.1`); the client address then comes from
 * X-Forwarded-For, so limits count clients, not the proxy.
 */
export function trustProxySetting(
  setting: string,
): boolean | string[] | ((address: string, hop: number) => boolean) {
  const trimmed = setting.trim();
  if (trimmed === '') return false;
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    return (_address, hop) => hop < hops;
  }
  return trimmed.split(/[\s,]+/).filter(Boolean);
}
