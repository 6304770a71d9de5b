export { DatabricksApiError, isDatabricksApiError } from './api-error.js';
export { createDatabricksClient, type DatabricksClient, dbfsMaxReadBytes } from './client.js';
export type * from './schema.js';
export {
  createTransport,
  type DatabricksTransport,
  normalizeHost,
  type TransportOptions,
} from './transport.js';
