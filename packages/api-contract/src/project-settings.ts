import { Cron } from 'croner';
import { z } from 'zod';
import { applyModeSchema } from './apply-mode.js';

export const projectPhases = ['PENDING_SETUP', 'LEARNING', 'OPTIMIZING', 'REBASING', 'MONITORING'] as const;
export type ProjectPhase = (typeof projectPhases)[number];

export const preferences = ['economy', 'balanced', 'performance'] as const;
export type Preference = (typeof preferences)[number];

const cronExpression = z.string().refine(
  (value) => {
    try {
      new Cron(value, { paused: true }).stop();
      return true;
    } catch {
      return false;
    }
  },
  { message: 'must be a valid cron expression' },
);

const projectSettingsShape = {
  /** Runtime the job must finish within; null means no SLA. */
  slaMinutes: z.number().positive().nullable().default(null),
  /**
   * How recommendations reach the cluster: `manual` (recommend only), `approve-learning` (learning runs wait
   * for a person's approval, optimizing changes apply on their own), `auto`. See docs/optimizer.md, "Apply modes".
   */
  applyMode: applyModeSchema.default('manual'),
  /** Earlier versions' switch, kept in agreement with `applyMode`: false is `manual`, true `auto`. */
  autoApply: z.boolean().default(false),
  /** Keep autoscaling jobs autoscaling and fixed-size jobs fixed. */
  maintainScalingType: z.boolean().default(true),
  preference: z.enum(preferences).default('economy'),
  allowedInstanceFamilies: z.array(z.string().min(1)).default([]),
  allowedInstanceTypes: z.array(z.string().min(1)).default([]),
  minWorkers: z.number().int().min(0).default(1),
  maxWorkers: z.number().int().min(1).default(100),
  spotPolicy: z.enum(['on-demand-only', 'spot-with-fallback', 'spot-allowed']).default('spot-with-fallback'),
  forceOnDemandDriver: z.boolean().default(true),
  optimizationWindow: z
    .object({ cron: cronExpression, durationMinutes: z.number().int().positive() })
    .nullable()
    .default(null),
  photonAllowed: z.boolean().default(true),
  /**
   * SLA misses the job may knowingly risk on learning runs. 0 (the default) is safe learning: every
   * learning run is held to P(runtime ≤ SLA) ≥ 0.9 (or is a smaller cluster that a configuration which met
   * the SLA bounds by its slack: safe expansion), may not overrun the SLA badly and is expected to cost at
   * most 1.5 × the best known configuration. N ≥ 1 is the standard search: learning runs (up to 8) may go
   * where the SLA is unlikely to be met, until N runs after the first recommendation missed it. See
   * docs/optimizer.md, "Safe learning".
   */
  learningMissBudget: z.number().int().min(0).max(7).default(0),
};

/** Per-project optimization settings; every field has a default so a new project needs none. */
export const projectSettingsSchema = z
  .object(projectSettingsShape)
  .strict()
  .refine((settings) => settings.minWorkers <= settings.maxWorkers, {
    message: 'minWorkers must not exceed maxWorkers',
    path: ['minWorkers'],
  });

export type ProjectSettings = z.infer<typeof projectSettingsSchema>;

/** The settings as a project resource shows them (fields a later version dropped are left out). */
export const projectSettingsResourceSchema = z.object(projectSettingsShape);

export const defaultProjectSettings = (): ProjectSettings => projectSettingsSchema.parse({});

/**
 * The settings a recommendation is decided on. The others (apply mode, auto-apply, optimization window)
 * say how and when a decision reaches the cluster, not what it is.
 */
export const decisionSettings = [
  'slaMinutes',
  'preference',
  'learningMissBudget',
  'minWorkers',
  'maxWorkers',
  'maintainScalingType',
  'allowedInstanceFamilies',
  'allowedInstanceTypes',
  'spotPolicy',
  'forceOnDemandDriver',
  'photonAllowed',
] as const satisfies readonly (keyof ProjectSettings)[];

export type DecisionSetting = (typeof decisionSettings)[number];

/** The decision settings whose value differs between `before` and `after`. */
export function changedDecisionSettings(before: ProjectSettings, after: ProjectSettings): DecisionSetting[] {
  return decisionSettings.filter((key) => JSON.stringify(before[key]) !== JSON.stringify(after[key]));
}
