/**
 * What EMR accepts of the requests Setpoint sends (RunJobFlow, ModifyInstanceGroups, ModifyInstanceFleet,
 * PutManagedScalingPolicy): the service model botocore ships, checked as the SDK and the service check it,
 * and the rules EMR's API reference states beyond the model.
 */
export {
  describeRules,
  describeViolation,
  type Finding,
  type RuleDescription,
  type Violation,
} from '../rule.js';
export type { ServiceModel, ServiceShape } from '../service-model/service-shape.js';
export { checkEmrRequest } from './emr-request-rules.js';
export {
  type EmrAccountFacts,
  type EmrOperation,
  type EmrRequest,
  emrRules,
  emrServiceModel,
} from './emr-rules.js';
