import type { PlatformPlugin, PlatformRuntime } from '../../platform-api/platform.js';
import { emrConnector } from './connection/emr-connector.js';
import { EmrRunCoster } from './cost/emr-run-coster.js';
import { createEmrIntegration, emrJobKinds } from './emr-integration.js';
import { createEmrCode } from './iac/emr-code.js';
import { emrRecommender } from './recommender/emr-recommender.js';
import { cachedSupportedInstanceTypes } from './recommender/supported-instance-types.js';
import { emrRoutes } from './routes/emr-routes.js';
import { emrRunReports } from './runs/emr-run-report-reader.js';
import { createEmrFormFactorAdviser } from './serverless/emr-form-factor-adviser.js';
import { migration0050 } from './store/0050-emr-platform.js';
import { migration0142 } from './store/0142-emr-applied-changes.js';
import { migration0180 } from './store/0180-emr-serverless-jobs.js';

/** The EMR runtime: the boundary's runtime plus what the demo and the tests drive directly. */
export interface EmrRuntime extends PlatformRuntime {
  integration: ReturnType<typeof createEmrIntegration>;
}

/**
 * AWS EMR as a Setpoint platform: accounts (workspaces of platform `emr`), discovery and import of
 * recurring workloads, step collection, EC2 + EMR fee + EBS costing, the EMR recommender, the writer the
 * apply core resizes long-running clusters with (and exports through), and the reconciliation poll.
 */
export function emrPlatform(): PlatformPlugin {
  return {
    name: 'emr',
    migrations: (dialect) => ({
      '0050-emr-platform': migration0050(dialect),
      '0142-emr-applied-changes': migration0142(),
      '0180-emr-serverless-jobs': migration0180(dialect),
    }),
    jobKinds: emrJobKinds,
    create(core): EmrRuntime {
      const integration = createEmrIntegration(core);
      return {
        name: 'emr',
        integration,
        runs: emrRunReports,
        handlers: integration.handlers,
        routes: emrRoutes({ integration, projects: core.projects, applies: core.applies }),
        coster: new EmrRunCoster(core.catalog),
        recommender: emrRecommender({
          catalog: core.catalog,
          nodeTypes: core.nodeTypes,
          supportedInstanceTypes: cachedSupportedInstanceTypes(
            async (accountId) => (await integration.connect(accountId)).client,
          ),
        }),
        writer: integration.writer,
        connector: emrConnector({ integration, outbound: core.outbound }),
        formFactor: createEmrFormFactorAdviser({
          runs: core.runs,
          region: async (workspaceId) => (await core.workspaces.facts(workspaceId))?.region ?? 'us-east-1',
        }),
        code: createEmrCode({
          store: integration.store,
          runs: core.runs,
          catalog: core.catalog,
          region: async (workspaceId) => (await core.workspaces.facts(workspaceId))?.region ?? 'us-east-1',
        }),
        schedules:
          core.config.reconcileIntervalSeconds > 0
            ? [
                {
                  name: 'EMR reconciliation',
                  everySeconds: core.config.reconcileIntervalSeconds,
                  run: (bucket) => integration.scheduleReconciliation(bucket),
                },
              ]
            : [],
      };
    },
  };
}

/** The EMR integration of a composed Setpoint: the demo and tests drive it directly. */
export function emrIntegrationOf(services: {
  platforms: { named(name: string): PlatformRuntime | undefined };
}): EmrRuntime['integration'] {
  const runtime = services.platforms.named('emr');
  if (!runtime || !('integration' in runtime)) throw new Error('the EMR platform is not registered');
  return (runtime as EmrRuntime).integration;
}
