import { type Logger, pino } from 'pino';

/** Paths pino replaces with [redacted]; every secret-bearing field name Setpoint uses is listed here. */
export const redactedPaths = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  '*.token',
  '*.secret',
  '*.password',
  '*.apiKeySecret',
  '*.api_key_secret',
  '*.accessToken',
  '*.access_token',
  '*.masterKey',
  '*.credentials',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  const options = { level, redact: { paths: redactedPaths, censor: '[redacted]' } };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
