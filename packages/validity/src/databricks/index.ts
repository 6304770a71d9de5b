/**
 * What Databricks accepts of a cluster, as its Clusters and Jobs API reference states it. Setpoint checks
 * every candidate and every write with these rules; the emulator refuses what they refuse.
 */
export {
  describeRules,
  describeViolation,
  type Finding,
  type RuleDescription,
  type Violation,
} from '../rule.js';
export {
  type ClusterSpecJson,
  databricksClusterRules,
  gp3Limits,
  namedNodeTypes,
  runsPhoton,
} from './cluster-rules.js';
export { checkClusterSpec, checkJobSettings, clustersOfJob } from './job-settings-rules.js';
export { breaksPolicyRule, policyAttributes, policyRuleFindings } from './policy-rules.js';
export {
  type DatabricksWorkspaceFacts,
  launchableNodeTypes,
  type NodeTypeFacts,
  type PolicyFacts,
  type PolicyRuleFacts,
} from './workspace-facts.js';
