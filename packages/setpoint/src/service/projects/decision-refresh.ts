import { changedDecisionSettings, type ProjectSettings } from '@setpoint/api-contract';
import { NotFoundError } from '@setpoint/foundation/errors';
import type { Project, ProjectInput, UpdatedProject } from './project-records.js';

type ProjectUpdate = Partial<Omit<ProjectInput, 'settings'>> & {
  settings?: Partial<ProjectSettings> | undefined;
};

interface Recommendations {
  /** The project's newest successful recommendation; NotFoundError when it has none. */
  latest(projectId: string): Promise<{ createdAt: number }>;
  request(projectId: string, options: { actor: string }): Promise<{ id: string }>;
}

/**
 * The project service, with the recommendation in force decided again when a setting it was decided on
 * changes. Otherwise the card would judge the old SLA, bounds or preference until the job's next run, and
 * under auto-apply that run would go on a cluster chosen for settings the team no longer has (a tighter SLA,
 * fewer workers allowed). The new recommendation is based on the newest processed run and takes the usual
 * way: auto-apply, an approval asked for, or a person's apply. A project with no recommendation since it
 * last started learning has nothing in force to replace: its next run decides under the new settings.
 */
export function withDecisionRefresh<
  Service extends {
    get(id: string): Promise<Project>;
    update(id: string, patch: ProjectUpdate, actor: string): Promise<UpdatedProject>;
  },
>(projects: Service, recommendations: Recommendations): Service {
  async function inForce(project: Project): Promise<boolean> {
    try {
      const latest = await recommendations.latest(project.id);
      return latest.createdAt >= (project.learningResetAt ?? 0);
    } catch (error) {
      if (error instanceof NotFoundError) return false;
      throw error;
    }
  }

  return {
    ...projects,
    async update(id: string, patch: ProjectUpdate, actor: string): Promise<UpdatedProject> {
      const before = await projects.get(id);
      const after = await projects.update(id, patch, actor);
      if (changedDecisionSettings(before.settings, after.settings).length === 0 || !(await inForce(after)))
        return after;
      const requested = await recommendations.request(id, { actor });
      return { ...after, decidedAgain: { recommendationId: requested.id } };
    },
  };
}
