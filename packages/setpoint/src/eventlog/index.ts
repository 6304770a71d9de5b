/**
 * Setpoint's Spark event log engine: the public API other modules import.
 *
 * - `analyzeEventLog(path, options)` → RunProfile: reads any layout (single file, `.inprogress`,
 *   rolling `eventlog_v2_*`, Databricks `eventlog` + `eventlog-*.gz` parts, a parent with several
 *   Spark contexts chosen by `options.context`, a `.zip` of those) and any codec (plain, gzip, zstd,
 *   lz4-java, snappy-java, lzf), detected from magic bytes.
 * - `findEventLogs(path)` lists the logs (contexts) under a path; `resolveEventLog` picks one.
 * - `readEventLog(unit)` + `buildRunProfile(run, source)` are the two halves of `analyzeEventLog`,
 *   for callers that want the aggregates before derived analysis.
 * - `runProfileSchema` validates a stored RunProfile; `runProfileSchemaVersion` is its version.
 *
 * - `profileEventLogInWorker(path, options)` is `analyzeEventLog` in a worker thread with a
 *   wall-clock timeout and a heap cap: what a server or job worker should call.
 *
 * Errors are AppErrors (ValidationError for unreadable input, NotFoundError for missing paths;
 * EventLogLimitError, EventLogTimeoutError and EventLogMemoryError for inputs past a bound), and
 * `parseFailureDisposition(error)` says whether a queue should retry or park the input.
 */

export { replayOnSlots } from './analysis/what-if.js';
export { type AnalyzeOptions, analyzeEventLog } from './analyze-event-log.js';
export { buildRunProfile, type ProfileOptions } from './build-run-profile.js';
export type { ByteSource } from './codec/byte-source.js';
export { type BlockDecoderChoice, type DecodedSource, decodeSource } from './codec/decode-source.js';
export { type Codec, detectCodec } from './codec/detect-codec.js';
export type { ZstdDecoder } from './codec/zstd-stream.js';
export {
  defaultEventLogLimits,
  EventLogLimitError,
  type EventLogLimitName,
  type EventLogLimits,
  resolveLimits,
} from './eventlog-limits.js';
export {
  type EventLogUnit,
  findEventLogs,
  type LayoutKind,
  resolveEventLog,
} from './layout/resolve-layout.js';
export { type ReadOptions, type ReadProgress, type ReadResult, readEventLog } from './read-event-log.js';
export type { AggregatedRun } from './run-aggregator.js';
export * from './run-profile.js';
export {
  defaultWorkerLimits,
  EventLogMemoryError,
  EventLogTimeoutError,
  type ParseFailureDisposition,
  parseFailureDisposition,
  profileEventLogInWorker,
  type WorkerLimits,
  type WorkerProfileOptions,
} from './worker/profile-in-worker.js';
