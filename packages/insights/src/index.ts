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
  externalConfigChange,
  type Insight,
  type InsightContext,
  type InsightKind,
  overProvisioned,
  projectInsights,
  repeatedFailures,
  runtimeRegression,
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
export { type CostedRunLike, spendInPeriod, spentInPeriod } from './spend.js';
export {
  presentInsight,
  presentOrganizationSummary,
  presentProjectRoi,
  presentProjectSummary,
} from './summary-wire.js';
