import type { AuditTrailEntryResource as AuditEntry } from '@setpoint/api-contract';
import { Fragment } from 'react';
import { Link, useSearchParams } from 'react-router';
import { endpoints } from '../api/endpoints.js';
import { useApi } from '../api/use-api.js';
import { LoadView } from '../components/load-view.js';
import { formatDateTime } from '../lib/format.js';

const pageSize = 50;

/** The query-string names the page keeps its filters under; the same names the API takes. */
const filterNames = ['actor', 'action', 'entity', 'project_id', 'from', 'to'] as const;
type FilterName = (typeof filterNames)[number];

const entityLabels: Record<string, string> = {
  project: 'Project',
  recommendation: 'Recommendation',
  workspace: 'Workspace',
  api_key: 'API key',
  user: 'User',
  organization: 'Organization settings',
  run: 'Run',
  alert_destination: 'Alert destination',
  alert_rule: 'Alert rule',
};

/** A `yyyy-mm-dd` day of the date inputs as the epoch ms of its local midnight. */
function dayStart(day: string): number | undefined {
  const [year, month, date] = day.split('-').map(Number);
  if (!year || !month || !date) return undefined;
  return new Date(year, month - 1, date).getTime();
}

/** The API's query for the page's filters: `to` is a whole day, so `until` is the next midnight. */
export function auditQuery(filters: Partial<Record<FilterName, string>>): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of ['actor', 'action', 'entity', 'project_id'] as const) {
    const value = filters[name];
    if (value) query.set(name, value);
  }
  const since = filters.from ? dayStart(filters.from) : undefined;
  const toStart = filters.to ? dayStart(filters.to) : undefined;
  if (since !== undefined) query.set('since', String(since));
  if (toStart !== undefined) query.set('until', String(toStart + 86_400_000));
  return query;
}

const detailValue = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

function detailText(detail: Record<string, unknown>): string {
  return Object.entries(detail)
    .map(([name, value]) => `${name}: ${detailValue(value)}`)
    .join(' · ');
}

/**
 * An entry's detail on one line, opened for the whole of it (one field a line): a settings change holds
 * JSON that would otherwise wrap a row to ten lines.
 */
function Detail({ detail }: { detail: Record<string, unknown> }) {
  const entries = Object.entries(detail);
  if (entries.length === 0) return null;
  return (
    <details className="audit-detail">
      <summary title="Show the whole detail">{detailText(detail)}</summary>
      <dl>
        {entries.map(([name, value]) => (
          <Fragment key={name}>
            <dt>{name}</dt>
            <dd>
              <code>{detailValue(value)}</code>
            </dd>
          </Fragment>
        ))}
      </dl>
    </details>
  );
}

function Target({ entry }: { entry: AuditEntry }) {
  const kind = entityLabels[entry.entity] ?? entry.entity;
  const project =
    entry.project_id && entry.project_name ? (
      <Link to={`/projects/${encodeURIComponent(entry.project_id)}`}>{entry.project_name}</Link>
    ) : null;
  if (entry.entity === 'project') return <>{project ?? `${kind} ${entry.entity_id} (deleted)`}</>;
  return (
    <>
      {kind} <code>{entry.entity_id}</code>
      {project && <> of {project}</>}
    </>
  );
}

/** Who changed what and when, across the organization (admins only); filters live in the address. */
export function AuditPage() {
  const [params, setParams] = useSearchParams();
  const filters = Object.fromEntries(filterNames.map((name) => [name, params.get(name) ?? ''])) as Record<
    FilterName,
    string
  >;
  const offset = Math.max(0, Number(params.get('offset') ?? 0) || 0);
  const query = auditQuery(filters);
  const listQuery = new URLSearchParams(query);
  listQuery.set('limit', String(pageSize));
  listQuery.set('offset', String(offset));

  const choices = useApi('audit-choices', async (signal) => {
    const [facets, projects] = await Promise.all([endpoints.auditFacets(signal), endpoints.projects(signal)]);
    return { facets, projects };
  });
  const page = useApi(`audit?${listQuery}`, (signal) => endpoints.auditTrail(listQuery, signal));

  const setFilter = (name: FilterName, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(name, value);
    else next.delete(name);
    next.delete('offset');
    setParams(next, { replace: true });
  };
  const goTo = (nextOffset: number) => {
    const next = new URLSearchParams(params);
    if (nextOffset > 0) next.set('offset', String(nextOffset));
    else next.delete('offset');
    setParams(next);
  };
  const facets = choices.result.state === 'ready' ? choices.result.data.facets : undefined;
  const projects = choices.result.state === 'ready' ? choices.result.data.projects : [];
  const select = (name: FilterName, label: string, options: Array<[string, string]>, any: string) => (
    <label className="field">
      <span>{label}</span>
      <select
        aria-label={label}
        value={filters[name]}
        onChange={(event) => setFilter(name, event.target.value)}
      >
        <option value="">{any}</option>
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
        {filters[name] && !options.some(([value]) => value === filters[name]) && (
          <option value={filters[name]}>{filters[name]}</option>
        )}
      </select>
    </label>
  );

  return (
    <div className="page">
      <header className="page-header">
        <h1>Audit trail</h1>
        <p className="page-sub">
          Who changed what and when: settings, applies, rollbacks, resets, API keys, users, workspaces and
          alerts.
        </p>
      </header>
      <form
        className="field-row audit-filters"
        aria-label="Filters"
        onSubmit={(event) => event.preventDefault()}
      >
        {select(
          'actor',
          'Who',
          (facets?.actors ?? []).map((actor) => [actor, actor]),
          'Anyone',
        )}
        {select(
          'action',
          'Action',
          (facets?.actions ?? []).map((action) => [action, action.replaceAll('_', ' ')]),
          'Any action',
        )}
        {select(
          'entity',
          'Target kind',
          (facets?.entities ?? []).map((entity) => [entity, entityLabels[entity] ?? entity]),
          'Anything',
        )}
        {select(
          'project_id',
          'Project',
          projects.map((project) => [project.id, project.name]),
          'Any project',
        )}
        <label className="field">
          <span>From</span>
          <input
            type="date"
            value={filters.from}
            onChange={(event) => setFilter('from', event.target.value)}
          />
        </label>
        <label className="field">
          <span>To</span>
          <input
            type="date"
            aria-label="To"
            value={filters.to}
            onChange={(event) => setFilter('to', event.target.value)}
          />
        </label>
      </form>
      <div className="toolbar">
        <span className="muted" data-testid="audit-count">
          {page.result.state === 'ready'
            ? page.result.data.total === 0
              ? 'No entries match'
              : `Entries ${offset + 1}–${offset + page.result.data.items.length} of ${page.result.data.total}`
            : ''}
        </span>
        <span className="toolbar-spacer" />
        <a
          className="button"
          href={`/api/v1/audit/export?${query}${query.size ? '&' : ''}format=csv`}
          download
        >
          Export CSV
        </a>
        <a
          className="button"
          href={`/api/v1/audit/export?${query}${query.size ? '&' : ''}format=json`}
          download
        >
          Export JSON
        </a>
      </div>
      <LoadView result={page.result} what="Audit trail" onRetry={page.reload}>
        {(data) =>
          data.items.length === 0 ? (
            <div className="empty-state">
              <h2>No audit entries</h2>
              <p>
                Nothing matches these filters. Changes to settings, applies, keys and users are listed here.
              </p>
            </div>
          ) : (
            <>
              <table className="table" data-testid="audit-trail">
                <thead>
                  <tr>
                    <th>When</th>
                    <th>Who</th>
                    <th>What</th>
                    <th>Target</th>
                    <th>Detail</th>
                  </tr>
                </thead>
                <tbody>
                  {data.items.map((entry) => (
                    <tr key={entry.id}>
                      <td>{formatDateTime(entry.created_at)}</td>
                      <td>{entry.actor}</td>
                      <td>{entry.action.replaceAll('_', ' ')}</td>
                      <td>
                        <Target entry={entry} />
                      </td>
                      <td data-testid="audit-detail">
                        <Detail detail={entry.detail} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
              <nav className="toolbar" aria-label="Pages">
                <button
                  type="button"
                  disabled={offset === 0}
                  onClick={() => goTo(Math.max(0, offset - pageSize))}
                >
                  ← Newer
                </button>
                <button
                  type="button"
                  disabled={offset + data.items.length >= data.total}
                  onClick={() => goTo(offset + pageSize)}
                >
                  Older →
                </button>
              </nav>
            </>
          )
        }
      </LoadView>
    </div>
  );
}
