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
