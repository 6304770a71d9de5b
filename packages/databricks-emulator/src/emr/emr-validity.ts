import {
  checkEmrRequest,
  type EmrAccountFacts,
  type EmrOperation,
  type Violation,
} from '@setpoint/validity/emr';
import type { EmrEngine } from './emr-engine.js';
import { emrError } from './emr-errors.js';

/** What a refused request is remembered as (the emulator's refusal list, shared with the Databricks face). */
export type EmrRefusal = Violation & { endpoint: string };

/** What this account offers a request: the region's instance types, the cluster's collection type. */
function accountFacts(engine: EmrEngine, region: string, body: unknown): EmrAccountFacts {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as {
    ClusterId?: unknown;
    ReleaseLabel?: unknown;
  };
  const cluster = typeof fields.ClusterId === 'string' ? engine.clusters.get(fields.ClusterId) : undefined;
  const release = typeof fields.ReleaseLabel === 'string' ? fields.ReleaseLabel : cluster?.releaseLabel;
  return {
    supportedInstanceTypes: new Set(engine.supportedInstanceTypes().map((type) => type.nodeTypeId)),
    releaseLabel: release ?? null,
    region,
    collectionType: cluster?.collectionType ?? null,
  };
}

/**
 * Refuses an EMR request the SDK or the service would refuse (Setpoint's EMR validity contract, the
 * service model's constraints and the API reference's rules): `ValidationException` with the first broken
 * rule's message, remembered through `remember`.
 */
export function refuseInvalidEmrRequest(
  engine: EmrEngine,
  region: string,
  operation: EmrOperation,
  body: unknown,
  remember: (refusal: EmrRefusal) => void,
): void {
  const input = typeof body === 'object' && body !== null ? body : {};
  const [refused] = checkEmrRequest({ operation, input }, accountFacts(engine, region, body));
  if (!refused) return;
  remember({ ...refused, endpoint: `ElasticMapReduce.${operation}` });
  throw emrError('ValidationException', refused.message);
}
