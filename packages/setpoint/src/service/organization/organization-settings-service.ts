import {
  type OrganizationSettings,
  type OrganizationSettingsPatch,
  organizationSettingsPatchSchema,
  organizationSettingsSchema,
} from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import { defaultOrganizationSettings, organizationApplyMode } from './organization-settings.js';
import type { OrganizationSettingsRepository } from './organization-settings-repository.js';

export interface OrganizationSettingsView {
  settings: OrganizationSettings;
  updatedAt: number | null;
  updatedBy: string | null;
}

export function createOrganizationSettingsService({ store }: { store: OrganizationSettingsRepository }) {
  async function get(): Promise<OrganizationSettingsView> {
    const stored = await store.read();
    if (!stored) return { settings: defaultOrganizationSettings(), updatedAt: null, updatedBy: null };
    // Fields added by later versions take their defaults.
    const settings = stored.settings as Partial<OrganizationSettings>;
    const parsed = organizationSettingsSchema.safeParse({
      ...settings,
      ...organizationApplyMode({}, settings),
    });
    return {
      settings: parsed.success ? parsed.data : defaultOrganizationSettings(),
      updatedAt: stored.updatedAt,
      updatedBy: stored.updatedBy,
    };
  }

  return {
    get,

    async update(patch: unknown, actor: string): Promise<OrganizationSettingsView> {
      const parsed = organizationSettingsPatchSchema.safeParse(patch);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new ValidationError(
          'ORGANIZATION_SETTINGS_INVALID',
          `invalid organization settings: ${issue ? `${issue.path.join('.') || 'body'} ${issue.message}` : 'validation failed'}`,
        );
      }
      const changes: OrganizationSettingsPatch = parsed.data;
      const before = (await get()).settings;
      const after: OrganizationSettings = {
        ...before,
        ...changes,
        ...organizationApplyMode(before, changes),
      };
      const changed = Object.fromEntries(
        Object.entries(changes)
          .filter(
            ([key]) => before[key as keyof OrganizationSettings] !== after[key as keyof OrganizationSettings],
          )
          .map(([key, value]) => [key, { from: before[key as keyof OrganizationSettings], to: value }]),
      );
      const now = Date.now();
      await store.write(after, actor, now, {
        entity: 'organization',
        entityId: 'settings',
        action: 'update',
        actor,
        detail: { changed },
      });
      return get();
    },
  };
}

export type OrganizationSettingsService = ReturnType<typeof createOrganizationSettingsService>;
