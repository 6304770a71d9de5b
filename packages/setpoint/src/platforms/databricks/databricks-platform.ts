import type { PlatformPlugin, PlatformRuntime } from '../../platform-api/platform.js';
import { databricksConnector } from './connection/databricks-connector.js';
import {
  createDatabricksIntegration,
  type DatabricksOptions,
  databricksJobKinds,
} from './databricks-integration.js';
import { createDatabricksCode } from './iac/databricks-code.js';
import { DatabricksRecommender } from './recommender/databricks-recommender.js';
import { cachedLaunchableNodeTypes } from './recommender/launchable-node-types.js';
import { databricksRoutes } from './routes/databricks-routes.js';
import { CostEngineCoster } from './runs/run-coster.js';
import { databricksRunReports } from './runs/run-report-reader.js';
import { migration0003 } from './store/0003-databricks-integration.js';
import { migration0020 } from './store/0020-databricks-system-tables.js';
import { migration0100 } from './store/0100-databricks-launch-delay.js';
import { migration0101 } from './store/0101-databricks-cluster-end.js';
import { migration0141 } from './store/0141-databricks-applied-changes.js';
import { migration0170 } from './store/0170-databricks-serverless-billing.js';

/** The Databricks runtime: the boundary's runtime plus what the demo and the tests drive directly. */
export interface DatabricksRuntime extends PlatformRuntime {
  integration: ReturnType<typeof createDatabricksIntegration>;
}

/**
 * Databricks (AWS and Azure) as a Setpoint platform: its tables, job kinds, run reports, routes,
 * coster, recommender, the writer the apply core writes jobs with, and the reconciliation poll.
 */
export function databricksPlatform(options: DatabricksOptions = {}): PlatformPlugin {
  return {
    name: 'databricks',
    migrations: (dialect) => ({
      '0003-databricks-integration': migration0003(dialect),
      '0020-databricks-system-tables': migration0020(dialect),
      '0100-databricks-launch-delay': migration0100(dialect),
      '0101-databricks-cluster-end': migration0101(dialect),
      '0141-databricks-applied-changes': migration0141(),
      '0170-databricks-serverless-billing': migration0170(),
    }),
    jobKinds: databricksJobKinds,
    create(core): DatabricksRuntime {
      const integration = createDatabricksIntegration(core, options, {
        confidentChoice: (input) => recommender.confidentChoice(input),
      });
      const recommender = new DatabricksRecommender({
        catalog: core.catalog,
        nodeTypes: core.nodeTypes,
        policies: async (workspaceId, policyId) =>
          (await integration.connect(workspaceId)).client.getClusterPolicy(policyId),
        launchableNodeTypes: cachedLaunchableNodeTypes(
          async (workspaceId) => (await integration.connect(workspaceId)).client,
        ),
      });
      return {
        name: 'databricks',
        integration,
        runs: databricksRunReports,
        handlers: integration.handlers,
        routes: databricksRoutes({
          integration,
          workspaces: core.workspaces,
          projects: core.projects,
          webhookRateLimitPerMinute: core.config.webhookRateLimitPerMinute,
        }),
        coster: new CostEngineCoster(core.catalog),
        recommender,
        writer: integration.writer,
        checkSignIn: integration.checkSignIn,
        connector: databricksConnector(integration),
        formFactor: integration.formFactor,
        code: createDatabricksCode({
          connect: integration.connect,
          projects: core.projects,
          runs: core.runs,
        }),
        schedules:
          core.config.reconcileIntervalSeconds > 0
            ? [
                {
                  name: 'databricks reconciliation',
                  everySeconds: core.config.reconcileIntervalSeconds,
                  run: (bucket) => integration.scheduleReconciliation(bucket),
                },
              ]
            : [],
      };
    },
  };
}

/** The Databricks integration of a composed Setpoint: the demo, the Job Bank and tests drive it directly. */
export function databricksIntegrationOf(services: {
  platforms: { named(name: string): PlatformRuntime | undefined };
}): DatabricksRuntime['integration'] {
  const runtime = services.platforms.named('databricks');
  if (!runtime || !('integration' in runtime)) throw new Error('the Databricks platform is not registered');
  return (runtime as DatabricksRuntime).integration;
}
