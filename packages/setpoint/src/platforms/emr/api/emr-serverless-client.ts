import {
  EMRServerlessClient,
  GetApplicationCommand,
  GetJobRunCommand,
  ListApplicationsCommand,
  ListJobRunsCommand,
} from '@aws-sdk/client-emr-serverless';
import { type AwsService, describeEmrError } from './emr-api-error.js';
import { validated } from './emr-client.js';
import {
  type AwsCredentialIdentityProvider,
  awsClientConfig,
  credentialProvider,
  type EmrConnection,
  type NodeAgents,
} from './emr-connection.js';
import {
  type JobRun,
  type JobRunSummary,
  jobRunSchema,
  jobRunSummarySchema,
  type ServerlessApplication,
  type ServerlessApplicationSummary,
  serverlessApplicationSchema,
  serverlessApplicationSummarySchema,
} from './emr-serverless-schema.js';

const service: AwsService = { name: 'EMR Serverless', iam: 'emr-serverless' };
/** A page's cap: a runaway `nextToken` loop stops here rather than spinning forever. */
const maxPages = 1_000;

/**
 * EMR Serverless as Setpoint reads it (an application's job runs and what each was billed), over the AWS SDK
 * for JavaScript v3 with the account's connection (region, credentials, endpoint, the guarded agents and the
 * same time limits as EMR): every answer validated with its zod schema, every failure through EMR's error map.
 */
export class EmrServerlessClient {
  readonly sdk: EMRServerlessClient;

  constructor(
    readonly connection: EmrConnection,
    credentials: AwsCredentialIdentityProvider = credentialProvider(connection),
    agents?: NodeAgents,
  ) {
    this.sdk = new EMRServerlessClient(awsClientConfig(connection, credentials, agents));
  }

  close(): void {
    this.sdk.destroy();
  }

  async getApplication(applicationId: string): Promise<ServerlessApplication> {
    const output = await this.#send('GetApplication', () =>
      this.sdk.send(new GetApplicationCommand({ applicationId })),
    );
    return validated(serverlessApplicationSchema, output.application, 'GetApplication', service.name);
  }

  /** The account region's applications, every state, in the order EMR Serverless lists them. */
  async *listApplications(): AsyncGenerator<ServerlessApplicationSummary> {
    let nextToken: string | undefined;
    for (let page = 0; page < maxPages; page += 1) {
      const output = await this.#send('ListApplications', () =>
        this.sdk.send(new ListApplicationsCommand(nextToken ? { nextToken } : {})),
      );
      for (const application of output.applications ?? [])
        yield validated(serverlessApplicationSummarySchema, application, 'ListApplications', service.name);
      nextToken = output.nextToken;
      if (!nextToken) return;
    }
  }

  /** The application's job runs (created after `createdAfter` when given), in the order EMR Serverless lists them. */
  async *listJobRuns(
    applicationId: string,
    filter: { createdAfter?: Date; states?: readonly string[] } = {},
  ): AsyncGenerator<JobRunSummary> {
    let nextToken: string | undefined;
    for (let page = 0; page < maxPages; page += 1) {
      const output = await this.#send('ListJobRuns', () =>
        this.sdk.send(
          new ListJobRunsCommand({
            applicationId,
            ...(filter.createdAfter ? { createdAtAfter: filter.createdAfter } : {}),
            ...(filter.states ? { states: [...filter.states] as never } : {}),
            ...(nextToken ? { nextToken } : {}),
          }),
        ),
      );
      for (const run of output.jobRuns ?? [])
        yield validated(jobRunSummarySchema, run, 'ListJobRuns', service.name);
      nextToken = output.nextToken;
      if (!nextToken) return;
    }
  }

  async getJobRun(applicationId: string, jobRunId: string): Promise<JobRun> {
    const output = await this.#send('GetJobRun', () =>
      this.sdk.send(new GetJobRunCommand({ applicationId, jobRunId })),
    );
    return validated(jobRunSchema, output.jobRun, 'GetJobRun', service.name);
  }

  async #send<T>(operation: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw describeEmrError(error, operation, service);
    }
  }
}
