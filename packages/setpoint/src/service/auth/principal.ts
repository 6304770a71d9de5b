import { UnauthorizedError } from '@setpoint/foundation/errors';
import type { KeyPrincipal } from './api-key-service.js';
import type { UserRole } from './user-service.js';

/** Who made a request: an API key (full access) or a dashboard user with a role. */
export interface Principal extends KeyPrincipal {
  role: UserRole;
  via: 'api-key' | 'session';
}

/** Principal of an authenticated request; routes behind the authentication hook always have one. */
export function principalOf(request: { principal?: Principal | undefined }): Principal {
  if (!request.principal) throw new UnauthorizedError();
  return request.principal;
}
