/**
 * Which Spark properties a RunProfile keeps, and how secret-looking values are hidden.
 *
 * A profile keeps only the keys Setpoint reads (platform detection, cluster sizing, the event-log
 * codec) — never the whole conf: a conf is user-controlled, can hold millions of keys, and carries
 * credentials. docs/eventlog.md lists the same rules.
 */

/** Exact keys kept: the platform's master URL and the settings that size or shape a run. */
export const keptSparkConfKeys: ReadonlySet<string> = new Set([
  'spark.master',
  'spark.submit.deployMode',
  'spark.executor.instances',
  'spark.executor.cores',
  'spark.executor.memory',
  'spark.executor.memoryOverhead',
  'spark.executor.memoryOverheadFactor',
  'spark.executor.pyspark.memory',
  'spark.driver.cores',
  'spark.driver.memory',
  'spark.driver.memoryOverhead',
  'spark.driver.maxResultSize',
  // which machine ran the driver: EMR checks that a step's event log came from the step's own cluster
  'spark.driver.host',
  'spark.memory.fraction',
  'spark.memory.storageFraction',
  'spark.memory.offHeap.enabled',
  'spark.memory.offHeap.size',
  'spark.dynamicAllocation.enabled',
  'spark.dynamicAllocation.minExecutors',
  'spark.dynamicAllocation.maxExecutors',
  'spark.dynamicAllocation.initialExecutors',
  'spark.dynamicAllocation.executorIdleTimeout',
  'spark.shuffle.service.enabled',
  'spark.task.cpus',
  'spark.default.parallelism',
  'spark.sql.shuffle.partitions',
  'spark.sql.adaptive.enabled',
  'spark.sql.adaptive.coalescePartitions.enabled',
  'spark.sql.adaptive.skewJoin.enabled',
  'spark.sql.autoBroadcastJoinThreshold',
  'spark.sql.files.maxPartitionBytes',
  'spark.speculation',
  'spark.serializer',
  'spark.eventLog.compress',
  'spark.eventLog.compression.codec',
  'spark.eventLog.rolling.enabled',
  'spark.io.compression.codec',
  'spark.databricks.photon.enabled',
  'spark.sql.emr.internal.extensions',
]);

/** Key families kept whole: Databricks' cluster tags (node types, workers…), EMR and Dataproc defaults. */
export const keptSparkConfPrefixes: readonly string[] = [
  'spark.databricks.clusterUsageTags.',
  'spark.emr.',
  'spark.dataproc.',
];

export function isKeptSparkConfKey(key: string): boolean {
  return keptSparkConfKeys.has(key) || keptSparkConfPrefixes.some((prefix) => key.startsWith(prefix));
}

/** What a redacted value reads as (the marker Spark's own UI uses). */
export const redactedValue = '*********(redacted)';

/** Words that make a key secret-looking wherever they appear in it, even inside a longer word. */
const secretSubstrings = ['password', 'passwd', 'secret', 'token', 'credential', 'passphrase', 'privatekey'];
/** Words that make a key secret-looking only as a whole word of the key (`fs.s3a.access.key`, `sasKey`). */
const secretWords = new Set([
  'key',
  'keys',
  'pwd',
  'auth',
  'authorization',
  'sas',
  'signature',
  'jwt',
  'bearer',
  'cookie',
]);

/**
 * A key is secret-looking when, lower-cased, it contains password, passwd, secret, token,
 * credential, passphrase or privatekey anywhere, or when one of its words — split at `.`, `_`, `-`,
 * other non-alphanumerics and lower→upper camelCase boundaries — is key(s), pwd, auth,
 * authorization, sas, signature, jwt, bearer or cookie.
 */
export function isSecretKey(key: string): boolean {
  const lower = key.toLowerCase();
  if (secretSubstrings.some((word) => lower.includes(word))) return true;
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return words.some((word) => secretWords.has(word));
}

/**
 * Values that carry a credential whatever their key: a URL with a password (`scheme://user:pw@`),
 * a Databricks token (`dapi…`), an AWS access key id (`AKIA…`/`ASIA…`), a JWT, a PEM private key,
 * an Azure SAS signature (`sig=`) or storage account key (`AccountKey=`).
 */
const secretValuePatterns = [
  /[a-z][a-z0-9+.-]*:\/\/[^/\s:@]*:[^/\s@]+@/i,
  /\bdapi[0-9a-f]{32}\b/i,
  /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\./,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /[?&]sig=[^&\s]+/i,
  /AccountKey=[^;\s]+/i,
];

export function isSecretValue(value: string): boolean {
  return secretValuePatterns.some((pattern) => pattern.test(value));
}
