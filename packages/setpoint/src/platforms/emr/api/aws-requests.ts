import { upstreamAnswer } from '@setpoint/foundation/errors';
import type { z } from 'zod';
import { type AwsService, describeEmrError } from './emr-api-error.js';

/** A paginated call's cap: a runaway `Marker` or `nextToken` loop stops here rather than spinning forever. */
const maxPages = 1_000;

/**
 * How the EMR adapter's clients (EMR, EMR Serverless) call their AWS service: each call's failure through
 * the one error map, named by the service and the operation; every page of a paginated call; every answer
 * checked with its zod schema.
 */
export interface AwsRequests {
  send<T>(operation: string, call: () => Promise<T>): Promise<T>;
  /** Every page of a call paginated by a token (`Marker`, `nextToken`), each sent as `send` does. */
  pages<Output>(
    operation: string,
    fetch: (token: string | undefined) => Promise<Output>,
    nextToken: (output: Output) => string | undefined,
  ): AsyncGenerator<Output>;
  validated<Schema extends z.ZodType>(schema: Schema, value: unknown, operation: string): z.output<Schema>;
}

export function awsRequests(service: AwsService): AwsRequests {
  const send = async <T>(operation: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw describeEmrError(error, operation, service);
    }
  };
  return {
    send,
    async *pages(operation, fetch, nextToken) {
      let token: string | undefined;
      for (let page = 0; page < maxPages; page += 1) {
        const output = await send(operation, () => fetch(token));
        yield output;
        token = nextToken(output);
        if (!token) return;
      }
    },
    validated: (schema, value, operation) =>
      upstreamAnswer(schema, value, {
        code: 'EMR_UNEXPECTED_RESPONSE',
        call: `${service.name} ${operation}`,
      }),
  };
}
