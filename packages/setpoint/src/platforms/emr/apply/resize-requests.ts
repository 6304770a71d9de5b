import {
  type EmrWriteRequest,
  instanceFleetTargetsRequest,
  instanceGroupCountRequest,
  managedScalingRequest,
} from '../api/write-requests.js';
import type { ResizePlan } from './resize-plan.js';

/**
 * The requests applying a plan sends, in order (`applyResize`). Removing the managed-scaling policy (an
 * undo back to none) takes nothing but the cluster id, so there is nothing of it to check.
 */
export function resizeRequestsOf(plan: ResizePlan): EmrWriteRequest[] {
  const requests: EmrWriteRequest[] = [];
  for (const action of plan.actions) {
    if (action.kind === 'instance-group')
      requests.push(instanceGroupCountRequest(plan.clusterId, action.instanceGroupId, action.to));
    else if (action.kind === 'instance-fleet')
      requests.push(instanceFleetTargetsRequest(plan.clusterId, action.instanceFleetId, action.to));
    // an undo's inverse puts back "no policy" (null), which EMR removes instead
    else if (action.to) requests.push(managedScalingRequest(plan.clusterId, action.to));
  }
  return requests;
}
