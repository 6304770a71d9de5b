import { type ModelProfile, modelProfileOf } from '../../eventlog/model-profile.js';
import { capRunProfile, maxStoredProfileBytes } from '../../eventlog/profile-caps.js';
import type { RunProfile } from '../../eventlog/run-profile.js';

/**
 * A run's profile as stored: within the profile caps whatever produced it (the event-log reader caps
 * its own; a platform's telemetry is capped here), and beside it what the model reads of it, the only
 * part a recommendation's window reads back.
 */
export function storedProfileColumns(profile: RunProfile): { profile: string; model_profile: string } {
  const capped = capRunProfile(profile);
  return { profile: JSON.stringify(capped), model_profile: JSON.stringify(modelProfileOf(capped)) };
}

/**
 * For a profile stored before model profiles were: its model profile, and the profile cut to the caps
 * when it is larger than they allow (stored before them). Null when the stored text is not a profile.
 */
export function modelProfileColumnsOf(stored: string): { model_profile: string; profile?: string } | null {
  let profile: RunProfile | null;
  try {
    profile = JSON.parse(stored) as RunProfile | null;
  } catch {
    return null;
  }
  if (profile === null || typeof profile !== 'object') return null;
  const columns = storedProfileColumns(profile);
  return stored.length > maxStoredProfileBytes ? columns : { model_profile: columns.model_profile };
}

/**
 * What the model reads of a profile that is never stored (Discover's, from a job's runs list), cut to the
 * same caps as a stored one, so a recommender reads it as it reads a stored run's.
 */
export function modelProfileFor(profile: RunProfile): ModelProfile {
  return modelProfileOf(capRunProfile(profile));
}
