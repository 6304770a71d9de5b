import { useState } from 'react';
import { Link } from 'react-router';

/** The discovered items a person ticked for import, by key. */
export function useSelection() {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const toggle = (key: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });
  return { selected, toggle, clear: () => setSelected(new Set()) };
}

/** The project settings an import sends: the SLA when one was typed. */
export function importSettings(slaMinutes: string): { settings?: { slaMinutes: number } } {
  const sla = Number(slaMinutes);
  return slaMinutes && sla > 0 ? { settings: { slaMinutes: sla } } : {};
}

/** The optional runtime SLA and the import button under a discovery table. */
export function ImportControls({
  slaMinutes,
  onSlaMinutes,
  busy,
  count,
  onImport,
}: {
  slaMinutes: string;
  onSlaMinutes(value: string): void;
  busy: boolean;
  count: number;
  onImport(): void;
}) {
  return (
    <div className="form-actions">
      <label className="field">
        <span>Runtime SLA (minutes, optional)</span>
        <input
          type="number"
          min={1}
          value={slaMinutes}
          onChange={(event) => onSlaMinutes(event.target.value)}
        />
      </label>
      <button type="button" className="primary" disabled={busy || count === 0} onClick={onImport}>
        {busy ? 'Importing…' : count === 0 ? 'Import selected' : `Import ${count} selected`}
      </button>
    </div>
  );
}

/** What an import made: a link to each project with its queued runs, and what was not found. */
export function ImportedNotice({
  projects,
  missing,
  testId,
}: {
  projects: ReadonlyArray<{ id: string; name: string; queuedRuns: number }>;
  missing: readonly string[];
  testId: string;
}) {
  return (
    <div className="notice notice-ok" role="status" data-testid={testId}>
      Imported:{' '}
      {projects.map((project, index) => (
        <span key={project.id}>
          {index > 0 && ', '}
          <Link to={`/projects/${encodeURIComponent(project.id)}`}>{project.name}</Link> ({project.queuedRuns}{' '}
          run
          {project.queuedRuns === 1 ? '' : 's'} queued)
        </span>
      ))}
      {missing.length > 0 && ` · not found: ${missing.join(', ')}`}
    </div>
  );
}

/** A discovered item's project: a link once imported. */
export function ProjectCell({ projectId }: { projectId: string | null }) {
  return projectId ? (
    <Link to={`/projects/${encodeURIComponent(projectId)}`}>imported</Link>
  ) : (
    <span className="muted">not imported</span>
  );
}
