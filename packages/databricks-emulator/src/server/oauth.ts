import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The Azure Databricks first-party application: Entra tokens for a workspace are issued for it. */
export const azureDatabricksResourceId = '2ff814a6-3304-4ab8-85cb-cd0e6f879c1d';

/**
 * Azure's service management resource: the Databricks SDKs ask Entra for a token for it too and send it
 * as `X-Databricks-Azure-SP-Management-Token`, so that a principal with Azure rights on the workspace
 * can be added to it on first use. It only names an audience; nothing is called there.
 */
export const azureManagementResource = 'https://management.core.windows.net/';

/** What an issued token opens: the workspace's REST API, or (Entra only) Azure management. */
type Audience = 'workspace' | 'management';

/** A service principal the emulated workspace knows: a Databricks OAuth secret or an Entra ID app. */
export interface ServicePrincipal {
  kind: 'databricks' | 'entra';
  clientId: string;
  clientSecret: string;
  /** The Entra tenant the app lives in (Entra principals only). */
  tenantId?: string;
}

export const defaultServicePrincipals: ServicePrincipal[] = [
  {
    kind: 'databricks',
    clientId: '6b1d6f0c-setpoint-emulator-sp',
    clientSecret: 'dose-setpoint-emulator-secret',
  },
  {
    kind: 'entra',
    clientId: '9e3a4c1b-setpoint-emulator-app',
    clientSecret: 'entra-setpoint-emulator-secret',
    tenantId: '72f988bf-0000-4000-8000-setpointtest',
  },
];

export interface OAuthOptions {
  servicePrincipals?: ServicePrincipal[];
  /** Lifetime of an issued access token (default 3600 s, what both issuers grant). */
  tokenLifetimeSeconds?: number;
  /** Token expiry follows real time (clients compare `expires_in` with their own clock); tests inject it. */
  now?: () => number;
}

interface IssuedToken {
  clientId: string;
  kind: ServicePrincipal['kind'];
  audience: Audience;
  expiresAtMs: number;
}

/**
 * The two OAuth issuers a Databricks workspace trusts for machine-to-machine access: the workspace's own
 * (`/oidc/v1/token`, `scope=all-apis`) and a Microsoft Entra ID authority (`/{tenant}/oauth2/v2.0/token`,
 * `scope=<Azure Databricks resource>/.default`). Both use the client-credentials grant; a wrong client or
 * secret is `invalid_client`. Issued tokens are accepted by the REST API until they expire or are revoked.
 */
export class OAuthIssuer {
  readonly principals: ServicePrincipal[];
  readonly tokenLifetimeSeconds: number;
  readonly now: () => number;
  private readonly issued = new Map<string, IssuedToken>();
  /** Token requests answered, by outcome; tests read them to prove a cache or a refresh. */
  readonly requests = { granted: 0, rejected: 0 };

  constructor(options: OAuthOptions = {}) {
    this.principals = options.servicePrincipals ?? defaultServicePrincipals;
    this.tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 3600;
    this.now = options.now ?? Date.now;
  }

  /** Whether a token opens the given audience (the workspace's REST API unless said otherwise). */
  accepts(accessToken: string, audience: Audience = 'workspace'): boolean {
    const token = this.issued.get(accessToken);
    if (!token || token.audience !== audience) return false;
    if (token.expiresAtMs <= this.now()) {
      this.issued.delete(accessToken);
      return false;
    }
    return true;
  }

  /** Revokes every issued token, as a secret rotation or an expiry would. */
  revokeAll(): number {
    const count = this.issued.size;
    this.issued.clear();
    return count;
  }

  issue(
    principal: ServicePrincipal,
    audience: Audience = 'workspace',
  ): { accessToken: string; expiresIn: number } {
    const accessToken = `${principal.kind === 'databricks' ? 'dbo' : 'eyJ0eXAi'}${randomBytes(24).toString('hex')}`;
    this.issued.set(accessToken, {
      clientId: principal.clientId,
      kind: principal.kind,
      audience,
      expiresAtMs: this.now() + this.tokenLifetimeSeconds * 1000,
    });
    this.requests.granted += 1;
    return { accessToken, expiresIn: this.tokenLifetimeSeconds };
  }

  authenticate(
    kind: ServicePrincipal['kind'],
    clientId: string | undefined,
    clientSecret: string | undefined,
    tenantId?: string,
  ): ServicePrincipal | undefined {
    const principal = this.principals.find(
      (candidate) =>
        candidate.kind === kind &&
        candidate.clientId === clientId &&
        (kind === 'databricks' || candidate.tenantId === tenantId),
    );
    if (!principal || clientSecret === undefined || !sameSecret(principal.clientSecret, clientSecret)) {
      this.requests.rejected += 1;
      return undefined;
    }
    return principal;
  }
}

function sameSecret(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function formBody(request: FastifyRequest): URLSearchParams {
  return request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
}

/** Client credentials from HTTP Basic (what the Databricks SDKs send) or from the form body. */
function clientCredentials(request: FastifyRequest, form: URLSearchParams) {
  const header = request.headers.authorization;
  if (header?.startsWith('Basic ')) {
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0)
      return {
        clientId: decodeURIComponent(decoded.slice(0, colon)),
        clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
      };
  }
  return {
    clientId: form.get('client_id') ?? undefined,
    clientSecret: form.get('client_secret') ?? undefined,
  };
}

function oauthError(reply: FastifyReply, status: number, error: string, description: string) {
  return reply.code(status).send({ error, error_description: description });
}

const entraUnsupportedGrant = (reply: FastifyReply) =>
  oauthError(
    reply,
    400,
    'unsupported_grant_type',
    'AADSTS70003: The app requested an unsupported grant type.',
  );

const entraInvalidClient = (reply: FastifyReply) =>
  oauthError(
    reply,
    401,
    'invalid_client',
    'AADSTS7000215: Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID.',
  );

export function registerOAuthRoutes(app: FastifyInstance, issuer: OAuthIssuer, baseUrl: { value: string }) {
  // What the Databricks SDKs read to find the workspace's OIDC issuer.
  app.get('/.well-known/databricks-config', async () => ({
    oidc_endpoint: `${baseUrl.value}/oidc`,
  }));
  app.get('/oidc/.well-known/oauth-authorization-server', async () => ({
    issuer: `${baseUrl.value}/oidc`,
    authorization_endpoint: `${baseUrl.value}/oidc/v1/authorize`,
    token_endpoint: `${baseUrl.value}/oidc/v1/token`,
    grant_types_supported: ['client_credentials', 'authorization_code', 'refresh_token'],
    scopes_supported: ['all-apis', 'offline_access'],
  }));

  app.post('/oidc/v1/token', async (request, reply) => {
    const form = formBody(request);
    if (form.get('grant_type') !== 'client_credentials')
      return oauthError(reply, 400, 'unsupported_grant_type', 'grant_type must be client_credentials');
    const scopes = (form.get('scope') ?? '').split(/\s+/);
    if (!scopes.includes('all-apis'))
      return oauthError(reply, 400, 'invalid_scope', 'scope must include all-apis');
    const { clientId, clientSecret } = clientCredentials(request, form);
    const principal = issuer.authenticate('databricks', clientId, clientSecret);
    if (!principal) return oauthError(reply, 401, 'invalid_client', 'Client authentication failed');
    const { accessToken, expiresIn } = issuer.issue(principal);
    return { access_token: accessToken, token_type: 'Bearer', scope: 'all-apis', expires_in: expiresIn };
  });

  // Entra's v1 endpoint, which the Databricks SDKs use for azure-client-secret: the audience is a
  // `resource` (the Azure Databricks application, or Azure management), the credentials are in the form.
  app.post('/:tenant/oauth2/token', async (request, reply) => {
    const tenant = (request.params as { tenant: string }).tenant;
    const form = formBody(request);
    if (form.get('grant_type') !== 'client_credentials') return entraUnsupportedGrant(reply);
    const resource = form.get('resource');
    const audience =
      resource === azureDatabricksResourceId
        ? 'workspace'
        : resource === azureManagementResource
          ? 'management'
          : undefined;
    if (!audience)
      return oauthError(
        reply,
        400,
        'invalid_resource',
        `AADSTS500011: The resource principal named ${resource ?? '(none)'} was not found in the tenant named ${tenant}.`,
      );
    const { clientId, clientSecret } = clientCredentials(request, form);
    const principal = issuer.authenticate('entra', clientId, clientSecret, tenant);
    if (!principal) return entraInvalidClient(reply);
    const { accessToken, expiresIn } = issuer.issue(principal, audience);
    const nowSeconds = Math.floor(issuer.now() / 1000);
    // v1 answers its numbers as strings
    return {
      token_type: 'Bearer',
      expires_in: String(expiresIn),
      ext_expires_in: String(expiresIn),
      expires_on: String(nowSeconds + expiresIn),
      not_before: String(nowSeconds),
      resource,
      access_token: accessToken,
    };
  });

  app.post('/:tenant/oauth2/v2.0/token', async (request, reply) => {
    const tenant = (request.params as { tenant: string }).tenant;
    const form = formBody(request);
    if (form.get('grant_type') !== 'client_credentials') return entraUnsupportedGrant(reply);
    if (form.get('scope') !== `${azureDatabricksResourceId}/.default`)
      return oauthError(
        reply,
        400,
        'invalid_scope',
        `AADSTS70011: The provided value for scope is not valid; expected ${azureDatabricksResourceId}/.default.`,
      );
    const { clientId, clientSecret } = clientCredentials(request, form);
    const principal = issuer.authenticate('entra', clientId, clientSecret, tenant);
    if (!principal) return entraInvalidClient(reply);
    const { accessToken, expiresIn } = issuer.issue(principal);
    return {
      token_type: 'Bearer',
      expires_in: expiresIn,
      ext_expires_in: expiresIn,
      access_token: accessToken,
    };
  });
}
