import {
  EMRServerlessClient,
  GetApplicationCommand,
  GetJobRunCommand,
  ListApplicationsCommand,
  ListJobRunsCommand,
} from '@aws-sdk/client-emr-serverless';
import { awsRequests } from './aws-requests.js';
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

const serverless = awsRequests({ name: 'EMR Serverless', iam: 'emr-serverless' });

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
    const output = await serverless.send('GetApplication', () =>
      this.sdk.send(new GetApplicationCommand({ applicationId })),
    );
    return serverless.validated(serverlessApplicationSchema, output.application, 'GetApplication');
  }

  /** The account region's applications, every state, in the order EMR Serverless lists them. */
  async *listApplications(): AsyncGenerator<ServerlessApplicationSummary> {
    for await (const output of serverless.pages(
      'ListApplications',
      (nextToken) => this.sdk.send(new ListApplicationsCommand(nextToken ? { nextToken } : {})),
      (output) => output.nextToken,
    ))
      for (const application of output.applications ?? [])
        yield serverless.validated(serverlessApplicationSummarySchema, application, 'ListApplications');
  }

  /** The application's job runs (created after `createdAfter` when given), in the order EMR Serverless lists them. */
  async *listJobRuns(
    applicationId: string,
    filter: { createdAfter?: Date; states?: readonly string[] } = {},
  ): AsyncGenerator<JobRunSummary> {
    for await (const output of serverless.pages(
      'ListJobRuns',
      (nextToken) =>
        this.sdk.send(
          new ListJobRunsCommand({
            applicationId,
            ...(filter.createdAfter ? { createdAtAfter: filter.createdAfter } : {}),
            ...(filter.states ? { states: [...filter.states] as never } : {}),
            ...(nextToken ? { nextToken } : {}),
          }),
        ),
      (output) => output.nextToken,
    ))
      for (const run of output.jobRuns ?? [])
        yield serverless.validated(jobRunSummarySchema, run, 'ListJobRuns');
  }

  async getJobRun(applicationId: string, jobRunId: string): Promise<JobRun> {
    const output = await serverless.send('GetJobRun', () =>
      this.sdk.send(new GetJobRunCommand({ applicationId, jobRunId })),
    );
    return serverless.validated(jobRunSchema, output.jobRun, 'GetJobRun');
  }
}
