import type { DiscoveredJobResource, DiscoverResource } from '@setpoint/api-contract/databricks';
import { countOf } from '@setpoint/insights';
import { type ReactNode, useMemo, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { messageOf } from '../api/client.js';
import { endpoints } from '../api/endpoints.js';
import { useApi } from '../api/use-api.js';
import { ColumnChooser, columnDragProps, useColumnLayout } from '../components/column-chooser.js';
import { type ChartOption, EChart } from '../components/echart.js';
import { LoadView } from '../components/load-view.js';
import { Missing } from '../components/missing.js';
import { ariaSort, SortButton } from '../components/sort-button.js';
import { downloadCsv, toCsv } from '../lib/csv.js';
import { type CsvField, csvTable } from '../lib/csv-values.js';
import { formatUsd } from '../lib/format.js';
import { matchesSearch, type SortDirection, sortRows } from '../lib/table.js';
import { useSession } from '../shell/session.js';
import { useThemeName } from '../shell/theme.js';

export function DiscoverPage() {
  const [params, setParams] = useSearchParams();
  // EMR accounts discover their workloads on their own page (`/emr`).
  const workspaces = useApi('workspaces', (signal) =>
    endpoints
      .workspaces(signal)
      .then((items) => items.filter((workspace) => workspace.platform === 'databricks')),
  );
  const chosen = params.get('workspace');

  return (
    <div className="page page-wide">
      <header className="page-header">
        <h1>Discover</h1>
        <p className="page-sub">
          Find the jobs in a workspace worth optimizing, and import them as projects.
        </p>
      </header>
      <LoadView result={workspaces.result} what="Workspaces" onRetry={workspaces.reload}>
        {(items) =>
          items.length === 0 ? (
            <div className="empty-state">
              <h2>No workspace yet</h2>
              <p>
                <Link to="/workspaces">Add a Databricks workspace</Link> first; Discover reads its jobs and
                runs.
              </p>
            </div>
          ) : (
            <>
              <label className="select-label">
                Workspace
                <select
                  value={chosen ?? items[0]!.id}
                  onChange={(event) => setParams({ workspace: event.target.value }, { replace: true })}
                >
                  {items.map((workspace) => (
                    <option key={workspace.id} value={workspace.id}>
                      {workspace.name}
                    </option>
                  ))}
                </select>
              </label>
              <DiscoverWorkspace workspaceId={chosen ?? items[0]!.id} />
            </>
          )
        }
      </LoadView>
    </div>
  );
}

/** A discovered job, with the project it became when it was imported (from the projects list). */
type DiscoveredJob = DiscoveredJobResource & { imported_project_id: string | null };
type DiscoverReport = Omit<DiscoverResource, 'jobs'> & { workspace_id: string; jobs: DiscoveredJob[] };

/** Discover names a job imported; the projects list says which project each job became. */
async function discoverWithProjects(workspaceId: string, signal: AbortSignal): Promise<DiscoverReport> {
  const [report, projects] = await Promise.all([endpoints.discover(workspaceId), endpoints.projects(signal)]);
  const projectByJob = new Map<string, string>();
  for (const project of projects) {
    if (project.workspace_id === workspaceId && project.job_id && !projectByJob.has(project.job_id))
      projectByJob.set(project.job_id, project.id);
  }
  return {
    ...report,
    workspace_id: workspaceId,
    jobs: report.jobs.map((job) => ({
      ...job,
      imported_project_id: job.imported ? (projectByJob.get(job.job_id) ?? null) : null,
    })),
  };
}

function DiscoverWorkspace({ workspaceId }: { workspaceId: string }) {
  const report = useApi(`discover:${workspaceId}`, (signal) => discoverWithProjects(workspaceId, signal));
  return (
    <LoadView result={report.result} what="Discover" onRetry={report.reload}>
      {(data) => <DiscoverView report={data} onImported={report.reload} />}
    </LoadView>
  );
}

const computeLabel: Record<DiscoveredJob['compute'], string> = {
  job_cluster: 'job cluster',
  all_purpose: 'all-purpose',
  serverless: 'serverless',
  mixed: 'mixed',
};

interface JobColumn {
  id: string;
  label: string;
  align?: 'end';
  fixed?: boolean;
  sortValue(job: DiscoveredJob): number | string | null;
  render(job: DiscoveredJob): ReactNode;
  csv: CsvField<DiscoveredJob>[];
}

const yesNo = (value: boolean) => (value ? 'yes' : 'no');

/** A figure with what qualifies it (what it rests on, what it leaves out) on hover, marked so it is seen. */
function Noted({ value, note }: { value: string; note: string | null }) {
  if (!note) return value;
  return (
    <span className="noted" title={note} data-note={note}>
      {value}
      <sup aria-hidden="true">i</sup>
      <span className="sr-only"> ({note})</span>
    </span>
  );
}

export const discoverColumns: JobColumn[] = [
  {
    id: 'name',
    label: 'Job',
    fixed: true,
    sortValue: (job) => job.name.toLowerCase(),
    render: (job) => job.name,
    csv: [{ header: 'job', value: (job) => job.name }],
  },
  {
    id: 'job_id',
    label: 'Job id',
    sortValue: (job) => job.job_id,
    render: (job) => job.job_id,
    csv: [{ header: 'job_id', value: (job) => job.job_id }],
  },
  {
    id: 'compute',
    label: 'Compute',
    sortValue: (job) => job.compute,
    render: (job) => computeLabel[job.compute],
    csv: [{ header: 'compute', value: (job) => job.compute }],
  },
  {
    id: 'photon',
    label: 'Photon',
    sortValue: (job) => (job.photon ? 1 : 0),
    render: (job) => yesNo(job.photon),
    csv: [{ header: 'photon', value: (job) => job.photon }],
  },
  {
    id: 'autoscale',
    label: 'Autoscaling',
    sortValue: (job) => (job.autoscale ? 1 : 0),
    render: (job) => yesNo(job.autoscale),
    csv: [{ header: 'autoscale', value: (job) => job.autoscale }],
  },
  {
    id: 'spot',
    label: 'Spot',
    sortValue: (job) => (job.spot ? 1 : 0),
    render: (job) => yesNo(job.spot),
    csv: [{ header: 'spot', value: (job) => job.spot }],
  },
  {
    id: 'runs',
    label: 'Runs',
    align: 'end',
    sortValue: (job) => job.runs_in_window,
    render: (job) => String(job.runs_in_window),
    csv: [{ header: 'runs_in_window', value: (job) => job.runs_in_window }],
  },
  {
    id: 'core_hours',
    label: 'Core hours',
    align: 'end',
    sortValue: (job) => job.core_hours_in_window,
    render: (job) => job.core_hours_in_window.toFixed(1),
    csv: [{ header: 'core_hours_in_window_h', value: (job) => job.core_hours_in_window }],
  },
  {
    id: 'monthly_cost',
    label: 'Est. cost / month',
    align: 'end',
    sortValue: (job) => job.monthly_cost_usd,
    render: (job) =>
      job.monthly_cost_usd === null ? (
        <Missing reason={job.cost_note ?? 'No estimate: the job has no priced runs in the window.'} />
      ) : (
        <Noted value={formatUsd(job.monthly_cost_usd)} note={job.cost_note} />
      ),
    csv: [
      { header: 'monthly_cost_usd', value: (job) => job.monthly_cost_usd },
      { header: 'cost_note', value: (job) => job.cost_note },
    ],
  },
  {
    id: 'monthly_savings',
    label: 'Est. savings / month',
    align: 'end',
    sortValue: (job) => job.estimated_monthly_savings_usd,
    render: (job) =>
      job.estimated_monthly_savings_usd === null ? (
        <Missing reason={job.saving_note ?? 'Not estimated.'} />
      ) : (
        <Noted
          value={formatUsd(job.estimated_monthly_savings_usd)}
          note={[job.saving_note, job.saving_basis && `Basis: ${job.saving_basis}`].filter(Boolean).join(' ')}
        />
      ),
    csv: [
      { header: 'estimated_monthly_savings_usd', value: (job) => job.estimated_monthly_savings_usd },
      { header: 'saving_basis', value: (job) => job.saving_basis },
      { header: 'saving_note', value: (job) => job.saving_note },
    ],
  },
];

function DiscoverView({ report, onImported }: { report: DiscoverReport; onImported(): void }) {
  const theme = useThemeName();
  const { canChange } = useSession();
  const [finding, setFinding] = useState<string | null>(null);
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [status, setStatus] = useState<string | null>(null);
  const activeFinding = report.findings.find((item) => item.id === finding) ?? null;
  const columnLayout = useColumnLayout('discover', discoverColumns);
  const columns = columnLayout.shown;
  // Biggest spend first: the jobs worth optimizing lead.
  const [sort, setSort] = useState<{ column: string; direction: SortDirection }>({
    column: 'monthly_cost',
    direction: 'desc',
  });

  const jobs = useMemo(() => {
    const allowed = activeFinding ? new Set(activeFinding.job_ids) : null;
    const shown = report.jobs.filter(
      (job) => (!allowed || allowed.has(job.job_id)) && matchesSearch([job.name, job.job_id], query),
    );
    const column = discoverColumns.find((candidate) => candidate.id === sort.column) ?? discoverColumns[0]!;
    return sortRows(shown, { value: column.sortValue, direction: sort.direction });
  }, [report.jobs, activeFinding, query, sort]);

  const onSort = (column: string) =>
    setSort((current) => ({
      column,
      direction: current.column === column && current.direction === 'asc' ? 'desc' : 'asc',
    }));

  const exportCsv = () => {
    const table = csvTable(
      columns.flatMap((column) => column.csv),
      jobs,
    );
    downloadCsv('setpoint-discover.csv', toCsv(table.header, table.rows));
  };

  const toggle = (id: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });

  const importSelected = async () => {
    setStatus(null);
    try {
      const result = await endpoints.importJobs(report.workspace_id, [...selected]);
      const jobs = result.jobs.filter((job) => job.projects.length > 0).length;
      const projects = result.jobs.reduce((sum, job) => sum + job.projects.length, 0);
      setStatus(`Imported ${countOf(jobs, 'job')} as ${countOf(projects, 'project')}.`);
      setSelected(new Set());
      onImported();
    } catch (error) {
      setStatus(messageOf(error));
    }
  };

  const timeline: ChartOption = {
    grid: { left: 56, right: 56, top: 36, bottom: 32 },
    legend: { top: 0 },
    tooltip: { trigger: 'axis' },
    xAxis: { type: 'category', data: report.timeline.map((point) => point.day) },
    yAxis: [
      // a count of jobs: whole-number ticks, never "0.2 jobs"
      { type: 'value', name: 'jobs', minInterval: 1 },
      { type: 'value', name: 'core hours' },
    ],
    series: [
      {
        name: 'Jobs',
        type: 'line',
        itemStyle: { color: '#3b82f6' },
        data: report.timeline.map((point) => point.jobs),
      },
      {
        name: 'Core hours',
        type: 'bar',
        yAxisIndex: 1,
        itemStyle: { color: '#f59e0b' },
        data: report.timeline.map((point) => point.core_hours),
      },
    ],
  };

  return (
    <div className="discover">
      <div className="finding-cards">
        {report.findings.map((item) => (
          <button
            key={item.id}
            type="button"
            className={item.id === finding ? 'finding finding-on' : 'finding'}
            aria-pressed={item.id === finding}
            onClick={() => setFinding(item.id === finding ? null : item.id)}
          >
            <span className="finding-count">{item.job_ids.length}</span>
            <span className="finding-title">{item.title}</span>
            <span className="finding-text">{item.detail}</span>
          </button>
        ))}
      </div>
      <EChart option={timeline} theme={theme} height={220} label="Job count and core hours per day" />
      <div className="toolbar">
        <input
          type="search"
          className="search"
          data-search="true"
          placeholder="Search jobs  ( / )"
          aria-label="Search jobs"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
        />
        {activeFinding && (
          <button type="button" className="chip chip-filter" onClick={() => setFinding(null)}>
            {activeFinding.title} ✕
          </button>
        )}
        <span className="toolbar-spacer" />
        <span className="count">{countOf(jobs.length, 'job')}</span>
        <ColumnChooser
          columns={discoverColumns}
          layout={columnLayout.layout}
          onToggle={columnLayout.toggle}
          onMove={columnLayout.move}
          onReset={columnLayout.reset}
        />
        <button type="button" onClick={exportCsv} disabled={jobs.length === 0}>
          Export CSV
        </button>
        {canChange && (
          <button type="button" className="primary" disabled={selected.size === 0} onClick={importSelected}>
            Import {selected.size || ''} selected
          </button>
        )}
      </div>
      {status && (
        <p className="notice" role="status">
          {status}
        </p>
      )}
      {/* At narrow widths the table scrolls sideways in its frame, never the page. */}
      <div className="table-frame">
        <table className="table" aria-label="Discovered jobs" data-testid="discover-table">
          <thead>
            <tr>
              <th aria-label="Select" />
              {columns.map((column) => {
                const active = column.id === sort.column;
                return (
                  <th
                    key={column.id}
                    scope="col"
                    className={column.align === 'end' ? 'num' : undefined}
                    aria-sort={ariaSort(active, sort.direction)}
                    {...columnDragProps(column.id, columnLayout.place)}
                  >
                    <SortButton
                      label={column.label}
                      active={active}
                      direction={sort.direction}
                      onSort={() => onSort(column.id)}
                    />
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {jobs.map((job) => (
              <tr key={job.job_id}>
                <td>
                  {job.imported_project_id ? (
                    <Link
                      to={`/projects/${encodeURIComponent(job.imported_project_id)}`}
                      aria-label={`Open the project of ${job.name}`}
                    >
                      project
                    </Link>
                  ) : job.imported ? (
                    <span className="muted">imported</span>
                  ) : (
                    <input
                      type="checkbox"
                      aria-label={`Select ${job.name}`}
                      checked={selected.has(job.job_id)}
                      onChange={() => toggle(job.job_id)}
                    />
                  )}
                </td>
                {columns.map((column) => (
                  <td
                    key={column.id}
                    data-column={column.id}
                    className={column.align === 'end' ? 'num' : undefined}
                  >
                    {column.render(job)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </div>
  );
}
