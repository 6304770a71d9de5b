import { type ApplyMode, applyModeOf, type ProjectSettings } from '@setpoint/api-contract';

const defaults: ProjectSettings = {
  slaMinutes: null,
  applyMode: 'manual',
  autoApply: false,
  maintainScalingType: true,
  preference: 'economy',
  allowedInstanceFamilies: [],
  allowedInstanceTypes: [],
  minWorkers: 1,
  maxWorkers: 100,
  spotPolicy: 'spot-with-fallback',
  forceOnDemandDriver: true,
  optimizationWindow: null,
  photonAllowed: true,
  learningMissBudget: 0,
};

export interface Form {
  sla: string;
  applyMode: ApplyMode;
  maintainScalingType: boolean;
  preference: ProjectSettings['preference'];
  families: string;
  types: string;
  minWorkers: string;
  maxWorkers: string;
  spotPolicy: ProjectSettings['spotPolicy'];
  forceOnDemandDriver: boolean;
  photonAllowed: boolean;
  learningMissBudget: string;
  windowCron: string;
  windowMinutes: string;
}

export function toForm(settings: Partial<ProjectSettings>): Form {
  const s = { ...defaults, ...settings };
  return {
    sla: s.slaMinutes === null ? '' : String(s.slaMinutes),
    applyMode: applyModeOf(s),
    maintainScalingType: s.maintainScalingType,
    preference: s.preference,
    families: s.allowedInstanceFamilies.join(', '),
    types: s.allowedInstanceTypes.join(', '),
    minWorkers: String(s.minWorkers),
    maxWorkers: String(s.maxWorkers),
    spotPolicy: s.spotPolicy,
    forceOnDemandDriver: s.forceOnDemandDriver,
    photonAllowed: s.photonAllowed,
    learningMissBudget: String(s.learningMissBudget),
    windowCron: s.optimizationWindow?.cron ?? '',
    windowMinutes: s.optimizationWindow ? String(s.optimizationWindow.durationMinutes) : '',
  };
}

const list = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((item) => item.trim())
    .filter(Boolean);

/** The form as settings, or the first problem a person must fix. */
export function toSettings(form: Form): { settings: ProjectSettings } | { problem: string } {
  const sla = form.sla.trim() === '' ? null : Number(form.sla);
  if (sla !== null && !(Number.isFinite(sla) && sla > 0))
    return { problem: 'The SLA must be a positive number of minutes, or empty for none.' };
  const minWorkers = Number(form.minWorkers);
  const maxWorkers = Number(form.maxWorkers);
  if (!Number.isInteger(minWorkers) || minWorkers < 0)
    return { problem: 'Minimum workers must be a whole number, 0 or more.' };
  if (!Number.isInteger(maxWorkers) || maxWorkers < 1)
    return { problem: 'Maximum workers must be a whole number, 1 or more.' };
  if (minWorkers > maxWorkers) return { problem: 'Minimum workers must not exceed maximum workers.' };
  const learningMissBudget = Number(form.learningMissBudget);
  if (!Number.isInteger(learningMissBudget) || learningMissBudget < 0 || learningMissBudget > 7)
    return { problem: 'The learning SLA-miss budget must be a whole number from 0 to 7.' };
  const hasWindow = form.windowCron.trim() !== '' || form.windowMinutes.trim() !== '';
  const windowMinutes = Number(form.windowMinutes);
  if (
    hasWindow &&
    (form.windowCron.trim() === '' || !Number.isInteger(windowMinutes) || windowMinutes <= 0)
  ) {
    return {
      problem: 'An optimization window needs both a cron expression and a duration in whole minutes.',
    };
  }
  return {
    settings: {
      slaMinutes: sla,
      applyMode: form.applyMode,
      autoApply: form.applyMode !== 'manual',
      maintainScalingType: form.maintainScalingType,
      preference: form.preference,
      allowedInstanceFamilies: list(form.families),
      allowedInstanceTypes: list(form.types),
      minWorkers,
      maxWorkers,
      spotPolicy: form.spotPolicy,
      forceOnDemandDriver: form.forceOnDemandDriver,
      photonAllowed: form.photonAllowed,
      learningMissBudget,
      optimizationWindow: hasWindow ? { cron: form.windowCron.trim(), durationMinutes: windowMinutes } : null,
    },
  };
}
