import type { PlatformHints } from '../run-profile.js';

export interface PlatformFacts {
  sparkConf: Record<string, string>;
  sparkVersion: string | null;
  hosts: string[];
}

const databricksTagPrefix = 'spark.databricks.clusterUsageTags.';

/**
 * Where the run happened, from what the log says about its cluster: Databricks' clusterUsageTags,
 * EMR's `-amzn-` build and `spark.emr.*` defaults, Dataproc's `spark.dataproc.*` settings, and the
 * master URL for YARN, Kubernetes, standalone and local runs.
 */
export function detectPlatform(facts: PlatformFacts): PlatformHints {
  const conf = facts.sparkConf;
  const master = conf['spark.master'] ?? null;
  const tags: Record<string, string> = {};
  for (const [key, value] of Object.entries(conf)) {
    if (key.startsWith(databricksTagPrefix)) tags[key.slice(databricksTagPrefix.length)] = value;
  }
  const hints: PlatformHints = {
    kind: 'unknown',
    master,
    cloud: null,
    region: null,
    workerNodeType: null,
    driverNodeType: null,
    workers: null,
    autoscale: null,
    photon: null,
    runtimeVersion: null,
    clusterId: null,
    availability: null,
    evidence: [],
    databricksTags: tags,
  };
  if (Object.keys(tags).length > 0) {
    fillDatabricks(hints, tags);
    return hints;
  }
  const confKeys = Object.keys(conf);
  const emrEvidence = [
    facts.sparkVersion?.includes('-amzn-') ? `Spark version ${facts.sparkVersion}` : null,
    confKeys.some((key) => key.startsWith('spark.emr.')) ? 'spark.emr.* settings' : null,
    conf['spark.sql.emr.internal.extensions'] ? 'spark.sql.emr.internal.extensions' : null,
  ].filter((fact): fact is string => fact !== null);
  if (emrEvidence.length > 0) {
    hints.kind = 'emr';
    hints.cloud = 'AWS';
    hints.evidence = emrEvidence;
    hints.region =
      facts.hosts.map((host) => /\.([a-z]{2}-[a-z]+-\d)\.compute\.internal$/.exec(host)?.[1]).find(Boolean) ??
      null;
    return hints;
  }
  if (confKeys.some((key) => key.startsWith('spark.dataproc.'))) {
    hints.kind = 'dataproc';
    hints.cloud = 'GCP';
    hints.evidence = ['spark.dataproc.* settings'];
    return hints;
  }
  if (master) {
    hints.evidence = [`spark.master=${master}`];
    if (master.startsWith('yarn')) hints.kind = 'yarn';
    else if (master.startsWith('k8s://')) hints.kind = 'kubernetes';
    else if (master.startsWith('spark://')) hints.kind = 'standalone';
    else if (master.startsWith('local')) hints.kind = 'local';
  }
  return hints;
}

function fillDatabricks(hints: PlatformHints, tags: Record<string, string>): void {
  const integer = (value: string | undefined) =>
    value !== undefined && /^\d+$/.test(value) ? Number(value) : null;
  hints.kind = 'databricks';
  hints.evidence = ['spark.databricks.clusterUsageTags.*'];
  hints.cloud = tags.cloudProvider ?? null;
  hints.region = tags.region ?? tags.dataPlaneRegion ?? null;
  hints.workerNodeType = tags.clusterNodeType ?? null;
  hints.driverNodeType = tags.driverNodeType ?? tags.clusterNodeType ?? null;
  hints.workers = integer(tags.clusterWorkers) ?? integer(tags.clusterTargetWorkers);
  const minWorkers = integer(tags.clusterMinWorkers);
  const maxWorkers = integer(tags.clusterMaxWorkers);
  if (minWorkers !== null && maxWorkers !== null && maxWorkers > 0)
    hints.autoscale = { minWorkers, maxWorkers };
  hints.runtimeVersion = tags.effectiveSparkVersion ?? tags.sparkVersion ?? null;
  const engine = tags.runtimeEngine?.toUpperCase();
  hints.photon = engine
    ? engine === 'PHOTON'
    : hints.runtimeVersion
      ? hints.runtimeVersion.includes('photon')
      : null;
  hints.clusterId = tags.clusterId ?? null;
  hints.availability = tags.clusterAvailability ?? null;
}
