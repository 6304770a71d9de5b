import {
  type ConnectionResource,
  type ProjectResource as Project,
  projectPhases,
} from '@setpoint/api-contract';
import { countOf } from '@setpoint/insights';
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { messageOf } from '../../api/client.js';
import { connectionEndpoints } from '../../api/connection-endpoints.js';
import { endpoints } from '../../api/endpoints.js';
import { ColumnChooser, useColumnLayout } from '../../components/column-chooser.js';
import { insightLabel } from '../../components/insight-chips.js';
import { ErrorNotice, Loading } from '../../components/load-view.js';
import { phaseName } from '../../components/phase-badge.js';
import { downloadCsv, toCsv } from '../../lib/csv.js';
import { csvTable } from '../../lib/csv-values.js';
import { matchesSearch, type SortDirection, sortRows } from '../../lib/table.js';
import { KpiHeader } from './kpi-header.js';
import { type ProjectRow, projectColumns } from './project-columns.js';
import { ProjectsTable } from './projects-table.js';

type ProjectsLoad =
  | { state: 'loading'; loaded: Project[]; total: number | null }
  | { state: 'ready'; projects: Project[] }
  | { state: 'failed'; message: string };

const insightKinds = [
  'repeated_failures',
  'sla_at_risk',
  'runtime_regression',
  'external_config_change',
  'spot_interruptions',
  'over_provisioned',
  'variable_data_size',
  'dormant',
];

export function ProjectsPage() {
  const [load, setLoad] = useState<ProjectsLoad>({ state: 'loading', loaded: [], total: null });
  const [workspaces, setWorkspaces] = useState<Map<string, ConnectionResource>>(new Map());
  const [params, setParams] = useSearchParams();
  const columnLayout = useColumnLayout('projects', projectColumns);

  useEffect(() => {
    const controller = new AbortController();
    endpoints
      .projects(controller.signal, (loaded, total) => {
        if (!controller.signal.aborted) setLoad({ state: 'loading', loaded, total });
      })
      .then(
        (projects) => {
          if (!controller.signal.aborted) setLoad({ state: 'ready', projects });
        },
        (error: unknown) => {
          if (!controller.signal.aborted) setLoad({ state: 'failed', message: messageOf(error) });
        },
      );
    // Workspace names (the connections of every platform) are a nicety: without the route the table shows ids.
    connectionEndpoints.list(controller.signal).then(
      (items) => setWorkspaces(new Map(items.map((connection) => [connection.id, connection]))),
      () => undefined,
    );
    return () => controller.abort();
  }, []);

  const projects = load.state === 'ready' ? load.projects : load.state === 'loading' ? load.loaded : [];
  // The box owns what is typed; the address follows, so fast typing never loses a key.
  const [search, setSearch] = useState(() => params.get('q') ?? '');
  const query = useDeferredValue(search);
  const phase = params.get('phase') ?? '';
  const workspace = params.get('workspace') ?? '';
  const insight = params.get('insight') ?? '';
  const sortParam = params.get('sort') ?? 'name';
  const sortDirection: SortDirection = sortParam.startsWith('-') ? 'desc' : 'asc';
  const sortColumnId = sortParam.replace(/^-/, '');

  const setParam = (name: string, value: string) => {
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (value) next.set(name, value);
        else next.delete(name);
        return next;
      },
      { replace: true },
    );
  };

  useEffect(() => {
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        if (query) next.set('q', query);
        else next.delete('q');
        return next;
      },
      { replace: true },
    );
  }, [query, setParams]);

  const columns = columnLayout.shown;

  const rows: ProjectRow[] = useMemo(() => {
    const all = projects.map((project) => ({
      project,
      workspaceName: project.workspace_id
        ? (workspaces.get(project.workspace_id)?.name ?? project.workspace_id)
        : '',
    }));
    const filtered = all.filter(
      (row) =>
        (!phase || row.project.phase === phase) &&
        (!workspace || row.project.workspace_id === workspace) &&
        (!insight || (row.project.summary?.insights ?? []).some((item) => item.kind === insight)) &&
        matchesSearch([row.project.name, row.workspaceName, row.project.job_id ?? '', row.project.id], query),
    );
    const sortColumn = projectColumns.find((column) => column.id === sortColumnId) ?? projectColumns[0]!;
    return sortRows(filtered, { value: sortColumn.sortValue, direction: sortDirection });
  }, [projects, workspaces, phase, workspace, insight, query, sortColumnId, sortDirection]);

  const onSort = (columnId: string) => {
    const next = columnId === sortColumnId && sortDirection === 'asc' ? `-${columnId}` : columnId;
    setParam('sort', next === 'name' ? '' : next);
  };

  const exportCsv = () => {
    const table = csvTable(
      columns.flatMap((column) => column.csv),
      rows,
    );
    const csv = toCsv(table.header, table.rows);
    downloadCsv(`setpoint-projects-${new Date().toISOString().slice(0, 10)}.csv`, csv);
  };

  const workspaceOptions = [
    ...new Set(projects.map((project) => project.workspace_id).filter(Boolean)),
  ] as string[];
  const total = load.state === 'loading' ? load.total : projects.length;

  return (
    <div className="page page-wide">
      <header className="page-header">
        <h1>Projects</h1>
        <p className="page-sub">
          Every optimized job cluster: phase, runtime against its SLA, cost and savings.
        </p>
      </header>
      <KpiHeader
        projects={load.state === 'ready' ? load.projects : null}
        rowsShown={load.state === 'ready' || (load.state === 'loading' && load.total !== null)}
      />
      <search className="toolbar">
        <input
          type="search"
          className="search"
          placeholder="Search name, workspace, job id  ( / )"
          aria-label="Search projects"
          data-search="true"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
        />
        <label className="select-label">
          Phase
          <select
            value={phase}
            onChange={(event) => setParam('phase', event.target.value)}
            aria-label="Filter by phase"
          >
            <option value="">All</option>
            {projectPhases.map((value) => (
              <option key={value} value={value}>
                {phaseName(value)}
              </option>
            ))}
          </select>
        </label>
        <label className="select-label">
          Workspace
          <select
            value={workspace}
            onChange={(event) => setParam('workspace', event.target.value)}
            aria-label="Filter by workspace"
          >
            <option value="">All</option>
            {workspaceOptions.map((id) => (
              <option key={id} value={id}>
                {workspaces.get(id)?.name ?? id}
              </option>
            ))}
          </select>
        </label>
        <label className="select-label">
          Insight
          <select
            value={insight}
            onChange={(event) => setParam('insight', event.target.value)}
            aria-label="Filter by insight"
          >
            <option value="">Any</option>
            {insightKinds.map((kind) => (
              <option key={kind} value={kind}>
                {insightLabel(kind)}
              </option>
            ))}
          </select>
        </label>
        <span className="toolbar-spacer" />
        <span className="count" data-testid="project-count-shown" aria-live="polite">
          {rows.length === total
            ? countOf(rows.length, 'project')
            : `${rows.length} of ${total === null || total === undefined ? '… projects' : countOf(total, 'project')}`}
        </span>
        <ColumnChooser
          columns={projectColumns}
          layout={columnLayout.layout}
          onToggle={columnLayout.toggle}
          onMove={columnLayout.move}
          onReset={columnLayout.reset}
        />
        <button type="button" onClick={exportCsv} disabled={rows.length === 0}>
          Export CSV
        </button>
      </search>
      {load.state === 'failed' ? (
        <ErrorNotice message={`Projects: ${load.message}`} onRetry={() => window.location.reload()} />
      ) : load.state === 'loading' && load.total === null ? (
        <Loading label="Loading projects…" />
      ) : load.state === 'ready' && projects.length === 0 ? (
        <div className="empty-state">
          <h2>No projects yet</h2>
          <p>
            Import jobs from a workspace on the <a href="/discover">Discover</a> page, or create one with{' '}
            <code>POST /api/v1/projects</code>.
          </p>
        </div>
      ) : (
        <ProjectsTable
          rows={rows}
          columns={columns}
          sortColumn={sortColumnId}
          sortDirection={sortDirection}
          onSort={onSort}
          onPlaceColumn={columnLayout.place}
        />
      )}
    </div>
  );
}
