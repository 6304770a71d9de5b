import {
  type ProjectPhase,
  type ProjectSettings,
  projectSettingsSchema,
  withApplyMode,
} from '@setpoint/api-contract';
import { NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import type { BlobStore } from '../../store/blobs/blob-store.js';
import { newId } from '../../store/ids.js';
import type { AuditRepository } from '../audit/audit-repository.js';
import type { WorkspaceRepository } from '../workspaces/workspace-repository.js';
import type { Project, ProjectInput, ProjectListQuery, UpdatedProject } from './project-records.js';
import type { ProjectRepository } from './project-repository.js';

export type { Project, ProjectInput, ProjectListQuery, UpdatedProject } from './project-records.js';

function parseSettings(settings: unknown): ProjectSettings {
  const parsed = projectSettingsSchema.safeParse(settings);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(
      'PROJECT_SETTINGS_INVALID',
      `invalid project settings: ${issue ? `${issue.path.join('.')} ${issue.message}` : 'validation failed'}`,
    );
  }
  return parsed.data;
}

/**
 * Settings after a change, validated, with the apply mode and the auto-apply switch in agreement
 * (`withApplyMode`): a change that names only `autoApply` (clients of earlier versions) sets the mode.
 */
function settingsAfter(current: Partial<ProjectSettings>, given: Partial<ProjectSettings>): ProjectSettings {
  const merged = parseSettings({ ...current, ...given });
  const { applyMode, autoApply } = withApplyMode(current, {
    applyMode: given.applyMode === undefined ? undefined : merged.applyMode,
    autoApply: given.autoApply === undefined ? undefined : merged.autoApply,
  });
  return { ...merged, applyMode, autoApply };
}

export interface ProjectServiceDependencies {
  projects: ProjectRepository;
  workspaces: Pick<WorkspaceRepository, 'assertExists'>;
  audit: Pick<AuditRepository, 'list'>;
  /** Where the runs' event logs live: deleting a project deletes them (the orphan sweep retries). */
  blobs?: Pick<BlobStore, 'deleteBundle'>;
}

export function createProjectService({ projects, workspaces, audit, blobs }: ProjectServiceDependencies) {
  async function get(id: string): Promise<Project> {
    const project = await projects.find(id);
    if (!project) throw new NotFoundError('PROJECT_NOT_FOUND', `project ${id} does not exist`);
    return project;
  }

  return {
    get,
    assertExists: projects.assertExists,
    list: (query: ProjectListQuery) => projects.list(query),
    count: () => projects.count(),

    async create(input: ProjectInput, actor: string): Promise<Project> {
      if (input.workspaceId) await workspaces.assertExists(input.workspaceId);
      const settings = settingsAfter({}, input.settings ?? {});
      const now = Date.now();
      const project: Project = {
        id: newId('prj'),
        name: input.name,
        description: input.description ?? null,
        workspaceId: input.workspaceId ?? null,
        jobId: input.jobId ?? null,
        clusterKey: input.clusterKey ?? null,
        appId: input.appId ?? null,
        settings,
        phase: 'PENDING_SETUP',
        learningResetAt: null,
        createdAt: now,
        updatedAt: now,
      };
      await projects.insert(project, {
        entity: 'project',
        entityId: project.id,
        action: 'create',
        actor,
        detail: { ...input, settings },
      });
      return get(project.id);
    },

    async update(
      id: string,
      patch: Partial<Omit<ProjectInput, 'settings'>> & { settings?: Partial<ProjectSettings> | undefined },
      actor: string,
    ): Promise<UpdatedProject> {
      const current = await get(id);
      if (patch.workspaceId) await workspaces.assertExists(patch.workspaceId);
      const settings = patch.settings ? settingsAfter(current.settings, patch.settings) : current.settings;
      const { settings: _given, ...fields } = patch;
      await projects.update(id, { ...fields, settings }, Date.now(), {
        entity: 'project',
        entityId: id,
        action: 'update',
        actor,
        detail: { ...patch },
      });
      return get(id);
    },

    /**
     * Forgets what Setpoint learned: back to LEARNING (PENDING_SETUP stays), runs kept as history but
     * only later runs feed the optimizer, pending recommendations fail as superseded.
     */
    async reset(id: string, actor: string): Promise<Project> {
      const current = await get(id);
      const phase: ProjectPhase = current.phase === 'PENDING_SETUP' ? 'PENDING_SETUP' : 'LEARNING';
      await projects.reset(id, phase, Date.now(), (supersededRecommendations) => ({
        entity: 'project',
        entityId: id,
        action: 'reset',
        actor,
        detail: { from: current.phase, to: phase, supersededRecommendations },
      }));
      return get(id);
    },

    async remove(id: string, actor: string): Promise<void> {
      await get(id);
      const bundles = await projects.remove(id, {
        entity: 'project',
        entityId: id,
        action: 'delete',
        actor,
        detail: {},
      });
      // After the rows are gone: a bundle left by a failure here is an orphan the sweep removes.
      for (const bundle of bundles) await blobs?.deleteBundle(bundle).catch(() => undefined);
    },

    audit: (id: string) => audit.list('project', id),
  };
}

export type ProjectService = ReturnType<typeof createProjectService>;
