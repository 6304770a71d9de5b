import { countOf } from '@setpoint/insights';
import { useState } from 'react';
import { messageOf } from '../../api/client.js';
import {
  type EmrAccountResource,
  type EmrServerlessDiscoverResource,
  type EmrServerlessImportResource,
  emrEndpoints,
} from '../../api/emr-endpoints.js';
import { formatDateTime } from '../../lib/format.js';
import {
  ImportControls,
  ImportedNotice,
  importSettings,
  ProjectCell,
  useSelection,
} from './import-selection.js';

type Application = EmrServerlessDiscoverResource['applications'][number];
type ImportedProject = EmrServerlessImportResource['projects'][number];

/** A job is selected by its application and key: two applications may run jobs of the same name. */
const selectionKey = (applicationId: string, job: string) => `${applicationId}\n${job}`;

/**
 * The account's EMR Serverless applications and their jobs (job runs grouped by name, else entry point), each
 * job imported as a monitored project through the serverless import route, one request per application.
 */
export function ServerlessDiscoverCard({
  account,
  sinceDays,
  result,
  error,
  canImport,
  onImported,
}: {
  account: EmrAccountResource;
  sinceDays: number;
  result: EmrServerlessDiscoverResource | null;
  error: string | null;
  canImport: boolean;
  onImported(): void;
}) {
  const { selected, toggle, clear } = useSelection();
  const [slaMinutes, setSlaMinutes] = useState('');
  const [imported, setImported] = useState<{ projects: ImportedProject[]; missing: string[] } | null>(null);
  const [importError, setImportError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const importSelected = async (applications: readonly Application[]) => {
    setBusy(true);
    setImportError(null);
    const projects: ImportedProject[] = [];
    const missing: string[] = [];
    try {
      for (const application of applications) {
        const jobs = application.jobs
          .filter((job) => selected.has(selectionKey(application.id, job.key)))
          .map((job) => job.key);
        if (jobs.length === 0) continue;
        const answer = await emrEndpoints.serverlessImport(account.id, {
          application_id: application.id,
          jobs,
          since_days: sinceDays,
          ...importSettings(slaMinutes),
        });
        projects.push(...answer.projects);
        missing.push(...answer.missing);
      }
      setImported({ projects, missing });
      clear();
      onImported();
    } catch (caught) {
      // what an earlier application's request imported stays imported: show it beside the error
      if (projects.length > 0) setImported({ projects, missing });
      setImportError(messageOf(caught));
    } finally {
      setBusy(false);
    }
  };

  const jobCount = result?.applications.reduce((sum, application) => sum + application.jobs.length, 0) ?? 0;
  const importable =
    result?.applications.some((application) => application.jobs.some((job) => job.project_id === null)) ??
    false;

  return (
    <section className="card" aria-label="EMR Serverless jobs" data-testid="emr-serverless-discover">
      <h2 className="section-title">EMR Serverless in {account.name}</h2>
      {error && <p className="notice notice-error">{error}</p>}
      {!error && !result && <p className="loading">Listing applications and their job runs…</p>}
      {imported && (
        <ImportedNotice
          testId="emr-serverless-imported"
          projects={imported.projects.map((project) => ({
            id: project.id,
            name: project.job,
            queuedRuns: project.queued_runs,
          }))}
          missing={imported.missing}
        />
      )}
      {importError && (
        <p className="notice notice-error" role="alert">
          {importError}
        </p>
      )}
      {result && (
        <>
          <p className="muted">
            {countOf(result.applications.length, 'application')} in {account.region},{' '}
            {countOf(jobCount, 'job')} with runs in the last {sinceDays} days
            {result.ungrouped > 0
              ? `, ${countOf(result.ungrouped, 'job run')} with neither a name nor an entry point`
              : ''}
            .
          </p>
          {result.applications.length === 0 && (
            <p>No EMR Serverless applications in this account's region.</p>
          )}
          {result.applications.map((application) => (
            <ApplicationJobs
              key={application.id}
              application={application}
              canImport={canImport}
              selected={selected}
              onToggle={toggle}
            />
          ))}
          {canImport && importable && (
            <ImportControls
              slaMinutes={slaMinutes}
              onSlaMinutes={setSlaMinutes}
              busy={busy}
              count={selected.size}
              onImport={() => void importSelected(result.applications)}
            />
          )}
        </>
      )}
    </section>
  );
}

function ApplicationJobs({
  application,
  canImport,
  selected,
  onToggle,
}: {
  application: Application;
  canImport: boolean;
  selected: ReadonlySet<string>;
  onToggle(key: string): void;
}) {
  const title = application.name ?? application.id;
  return (
    <div className="serverless-application">
      <h3>
        {title}{' '}
        <span className="muted small">
          {application.id} · {application.release_label} · {application.architecture} · {application.state}
        </span>
      </h3>
      {application.jobs.length === 0 ? (
        <p className="muted">No job runs in the window.</p>
      ) : (
        <table className="table" aria-label={`Jobs of ${title}`}>
          <thead>
            <tr>
              <th aria-label="Select" />
              <th>Job</th>
              <th className="num">Runs</th>
              <th>Newest run</th>
              <th>Project</th>
            </tr>
          </thead>
          <tbody>
            {application.jobs.map((job) => {
              const key = selectionKey(application.id, job.key);
              const newest = job.runs.reduce<number | null>(
                (latest, run) => (latest === null || run.created_at > latest ? run.created_at : latest),
                null,
              );
              return (
                <tr key={job.key}>
                  <td>
                    {job.project_id === null && canImport && (
                      <input
                        type="checkbox"
                        aria-label={`Select ${job.key}`}
                        checked={selected.has(key)}
                        onChange={() => onToggle(key)}
                      />
                    )}
                  </td>
                  <td>
                    {job.key}
                    {!job.recurring && <div className="muted small">ran once: nothing to learn yet</div>}
                  </td>
                  <td className="num">{job.runs.length}</td>
                  <td>{newest === null ? '—' : formatDateTime(newest)}</td>
                  <td>
                    <ProjectCell projectId={job.project_id} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
