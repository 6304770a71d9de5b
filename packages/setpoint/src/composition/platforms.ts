import type { PlatformPlugin } from '../platform-api/platform.js';
import { databricksPlatform } from '../platforms/databricks/databricks-platform.js';
import { emrPlatform } from '../platforms/emr/emr-platform.js';

/**
 * The platforms this Setpoint registers, in order: the first serves projects that have no workspace
 * (runs uploaded through the API or Airflow).
 */
export function registeredPlatforms(): PlatformPlugin[] {
  return [databricksPlatform(), emrPlatform()];
}

declare module '../queue/job-queue.js' {
  interface JobPayloads {
    'databricks.apply': JobPayloads['project.apply'];
    'emr.apply': JobPayloads['project.apply'];
    'databricks.revert': JobPayloads['project.revert'];
    'emr.revert': JobPayloads['project.revert'];
  }
}

/**
 * Apply and revert jobs the platforms queued before the apply core was one for every platform: jobs still
 * waiting after an upgrade run with the core's handlers. Kept for one release.
 */
export const legacyApplyJobKinds = [
  'databricks.apply',
  'emr.apply',
  'databricks.revert',
  'emr.revert',
] as const;
