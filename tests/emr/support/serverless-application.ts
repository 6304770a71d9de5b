import {
  CreateApplicationCommand,
  EMRServerlessClient,
  StartApplicationCommand,
  StartJobRunCommand,
} from '@aws-sdk/client-emr-serverless';
import type { MotoServer } from '../../support/moto-server.js';

export const serverlessRegion = 'us-east-1';

export interface ServerlessApplication {
  /** The AWS SDK client a team launches job runs with. */
  launcher: EMRServerlessClient;
  applicationId: string;
  /** Starts a job run (named, or without a name) of `entryPoint`; returns its id. */
  startRun(name: string | undefined, entryPoint: string, clientToken: string): Promise<string>;
}

/** A started Spark application `analytics` (emr-7.2.0) in moto's EMR Serverless, created by the AWS SDK. */
export async function startServerlessApplication(
  moto: MotoServer,
  credentials: { accessKeyId: string; secretAccessKey: string },
): Promise<ServerlessApplication> {
  const launcher = new EMRServerlessClient({
    endpoint: moto.endpoint,
    region: serverlessRegion,
    credentials,
  });
  const applicationId = (
    await launcher.send(
      new CreateApplicationCommand({
        name: 'analytics',
        releaseLabel: 'emr-7.2.0',
        type: 'SPARK',
        clientToken: 'analytics-app',
      }),
    )
  ).applicationId as string;
  await launcher.send(new StartApplicationCommand({ applicationId }));
  return {
    launcher,
    applicationId,
    async startRun(name, entryPoint, clientToken) {
      const started = await launcher.send(
        new StartJobRunCommand({
          applicationId,
          ...(name ? { name } : {}),
          clientToken,
          executionRoleArn: 'arn:aws:iam::123456789012:role/emr-serverless-job',
          jobDriver: { sparkSubmit: { entryPoint } },
        }),
      );
      return started.jobRunId as string;
    },
  };
}
