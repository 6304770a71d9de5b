import type { ProjectResource as Project } from '@setpoint/api-contract';

const labels: Record<Project['phase'], string> = {
  PENDING_SETUP: 'Pending setup',
  LEARNING: 'Learning',
  OPTIMIZING: 'Optimizing',
  REBASING: 'Rebasing',
  MONITORING: 'Monitoring',
};

/** "Learning 2/3" when the server says how far learning is, else the phase name. */
export function phaseLabel(project: Pick<Project, 'phase' | 'summary'>): string {
  const learning = project.summary?.learning;
  if (project.phase === 'LEARNING' && learning) {
    return `Learning ${Math.min(learning.completed_runs, learning.required_runs)}/${learning.required_runs}`;
  }
  return labels[project.phase];
}

export function phaseName(phase: Project['phase']): string {
  return labels[phase];
}

export function PhaseBadge({ project }: { project: Pick<Project, 'phase' | 'summary'> }) {
  return (
    <span className={`phase phase-${project.phase.toLowerCase()}`}>
      <span className="phase-dot" aria-hidden="true" />
      {phaseLabel(project)}
    </span>
  );
}
