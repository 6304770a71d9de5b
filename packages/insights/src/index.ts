/** One way to count in words on every surface (the dashboard takes it from here). */
export { countOf } from '@setpoint/foundation/words';
export { type ClusterFactsLike, clusterIdentity } from './cluster-identity.js';
export {
  type ComponentFactor,
  type CostComponentLike,
  CostTotalsBuilder,
  costByKind,
  costKindLabels,
  feeLabel,
  kindUsd,
  platformLabel,
  zeroByKind,
} from './cost-totals.js';
export { chronological, type InsightRun, isFailed, isSuccessful, runtimeMinutes } from './insight-run.js';
export {
  dormant,
  exactMinutes,
  externalConfigChange,
  type Insight,
  type InsightContext,
  type InsightKind,
  overProvisioned,
  projectInsights,
  repeatedFailures,
  runtimeRegression,
  runtimeRising,
  slaAtRisk,
  spotInterruptions,
  variableDataSize,
} from './project-insights.js';
export { type ProjectSummary, summarizeProject } from './project-summary.js';
export {
  annualRunRate,
  chooseMethod,
  type OrganizationRoi,
  organizationRoi,
  type ProjectRoi,
  projectRoi,
  type RoiMethod,
  type RoiReason,
} from './roi.js';
export {
  rollingSlaHealth,
  type SlaHealth,
  type SlaOutcome,
  type SlaRun,
  slaHealth,
  slaHealthTarget,
  slaHealthWindow,
  slaOutcome,
} from './sla-health.js';
export {
  type CostedRunLike,
  spendInPeriod,
  spendWindow,
  spendWindowDays,
  spentInPeriod,
} from './spend.js';
export {
  presentInsight,
  presentOrganizationSummary,
  presentProjectRoi,
  presentProjectSummary,
} from './summary-wire.js';
