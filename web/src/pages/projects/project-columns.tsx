import { type ApplyMode, applyModeOf, type ProjectResource as Project } from '@setpoint/api-contract';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { InsightChips, insightLabel } from '../../components/insight-chips.js';
import { Missing } from '../../components/missing.js';
import { PhaseBadge, phaseLabel } from '../../components/phase-badge.js';
import type { CsvField } from '../../lib/csv-values.js';
import { formatMinutes, formatPercent, formatUsd } from '../../lib/format.js';

export interface ProjectRow {
  project: Project;
  workspaceName: string;
}

export interface Column {
  id: string;
  label: string;
  /** CSS grid track: the minimum keeps every default column inside 1280 px. */
  width: string;
  align?: 'end';
  /** Sort key; null sorts last in both directions. */
  sortValue(row: ProjectRow): number | string | null;
  render(row: ProjectRow): ReactNode;
  /** What the CSV export writes for this column: raw values, the unit in each header. */
  csv: CsvField<ProjectRow>[];
  /** Cannot be hidden. */
  fixed?: boolean;
}

const sla = (row: ProjectRow) => row.project.settings.slaMinutes ?? null;
const lastRuntime = (row: ProjectRow) => row.project.summary?.last_run?.runtime_minutes ?? null;
const savings = (row: ProjectRow) => row.project.summary?.roi?.savings_to_date_usd ?? null;
const seconds = (minutes: number | null) => (minutes === null ? null : minutes * 60);

const applyModeLabels: Record<ApplyMode, string> = {
  manual: 'Manual',
  'approve-learning': 'Approve learning',
  auto: 'Auto',
};
const applyModeRank: Record<ApplyMode, number> = { auto: 2, 'approve-learning': 1, manual: 0 };

const methodLabel = { cost_change: 'cost change', cost_per_gb_change: 'cost/GB change' } as const;

/** Why a project has no runtime or cost yet. */
function noRunReason(row: ProjectRow, what: string): string {
  if (!row.project.summary?.last_run) return `No run yet: the ${what} appears after the first run.`;
  return `The newest run is still running or being processed; the ${what} appears when it is done.`;
}

function runtimeCell(row: ProjectRow): ReactNode {
  const limit = sla(row);
  const newest = lastRuntime(row);
  // While the newest run is processed, the mean of the recent runs stands in for it.
  const minutes = newest ?? row.project.summary?.runtime_minutes ?? null;
  if (minutes === null) return <Missing reason={noRunReason(row, 'runtime')} />;
  const text =
    limit === null ? formatMinutes(minutes) : `${formatMinutes(minutes)} / ${formatMinutes(limit)}`;
  const title = [
    newest === null ? 'Mean of the recent runs: the newest run is still being processed.' : 'Newest run.',
    limit === null ? 'No SLA set.' : `SLA ${formatMinutes(limit)}.`,
  ].join(' ');
  return (
    <span className={limit !== null && minutes > limit ? 'over-sla' : undefined} title={title}>
      {text}
    </span>
  );
}

export const projectColumns: Column[] = [
  {
    id: 'name',
    label: 'Project',
    width: 'minmax(140px, 2fr)',
    fixed: true,
    sortValue: (row) => row.project.name.toLowerCase(),
    render: (row) => (
      <Link
        className="row-link"
        to={`/projects/${encodeURIComponent(row.project.id)}`}
        title={row.project.name}
      >
        {row.project.name}
      </Link>
    ),
    csv: [
      { header: 'project', value: (row) => row.project.name },
      { header: 'project_id', value: (row) => row.project.id },
    ],
  },
  {
    id: 'workspace',
    label: 'Workspace',
    width: 'minmax(80px, 1fr)',
    sortValue: (row) => row.workspaceName.toLowerCase() || null,
    render: (row) =>
      row.workspaceName ? (
        <span title={row.workspaceName}>{row.workspaceName}</span>
      ) : (
        <Missing reason="Not linked to a workspace: runs reach it by upload." />
      ),
    csv: [{ header: 'workspace', value: (row) => row.workspaceName || null }],
  },
  {
    id: 'phase',
    label: 'Phase',
    width: 'minmax(100px, 140px)',
    sortValue: (row) => phaseLabel(row.project),
    render: (row) => <PhaseBadge project={row.project} />,
    csv: [
      { header: 'phase', value: (row) => row.project.phase },
      {
        header: 'learning_runs_done',
        value: (row) => row.project.summary?.learning?.completed_runs ?? null,
      },
    ],
  },
  {
    id: 'last_run',
    label: 'Last run',
    width: 'minmax(72px, 110px)',
    sortValue: (row) => row.project.summary?.last_run?.status ?? null,
    render: (row) => {
      const lastRun = row.project.summary?.last_run;
      if (!lastRun) return <Missing reason="No run yet." />;
      if (!lastRun.status) return <Missing reason="The newest run has not reported a result yet." />;
      return (
        <span className={`status status-${/SUCC/i.test(lastRun.status) ? 'ok' : 'bad'}`}>
          {lastRun.status}
        </span>
      );
    },
    csv: [
      { header: 'last_run_status', value: (row) => row.project.summary?.last_run?.status ?? null },
      { header: 'last_run_started_at_ms', value: (row) => row.project.summary?.last_run?.started_at ?? null },
    ],
  },
  {
    id: 'runtime',
    label: 'Runtime / SLA',
    width: 'minmax(110px, 150px)',
    align: 'end',
    sortValue: (row) => lastRuntime(row) ?? row.project.summary?.runtime_minutes ?? null,
    render: runtimeCell,
    csv: [
      { header: 'last_runtime_s', value: (row) => seconds(lastRuntime(row)) },
      { header: 'mean_runtime_s', value: (row) => seconds(row.project.summary?.runtime_minutes ?? null) },
      { header: 'sla_s', value: (row) => seconds(sla(row)) },
    ],
  },
  {
    id: 'cost',
    label: 'Cost / run',
    width: 'minmax(72px, 100px)',
    align: 'end',
    sortValue: (row) => row.project.summary?.cost_per_run_usd ?? null,
    render: (row) => {
      const cost = row.project.summary?.cost_per_run_usd ?? null;
      return cost === null ? (
        <Missing reason={noRunReason(row, 'cost')} />
      ) : (
        <span title="Mean cost of the recent runs">{formatUsd(cost)}</span>
      );
    },
    csv: [{ header: 'cost_per_run_usd', value: (row) => row.project.summary?.cost_per_run_usd ?? null }],
  },
  {
    id: 'savings',
    label: 'Savings to date',
    width: 'minmax(80px, 130px)',
    align: 'end',
    sortValue: savings,
    render: (row) => {
      const roi = row.project.summary?.roi;
      if (!roi)
        return (
          <Missing
            reason={
              row.project.phase === 'LEARNING' || row.project.phase === 'PENDING_SETUP'
                ? 'Still learning: savings are measured once runs use a recommended configuration.'
                : 'No run on a recommended configuration has been priced yet.'
            }
          />
        );
      return (
        <span title={`${formatPercent(roi.savings_fraction)} by ${methodLabel[roi.method]}`}>
          {formatUsd(roi.savings_to_date_usd)}
        </span>
      );
    },
    csv: [
      { header: 'savings_to_date_usd', value: savings },
      { header: 'savings_fraction', value: (row) => row.project.summary?.roi?.savings_fraction ?? null },
      { header: 'savings_method', value: (row) => row.project.summary?.roi?.method ?? null },
    ],
  },
  {
    id: 'insights',
    label: 'Insights',
    width: 'minmax(90px, 1.2fr)',
    sortValue: (row) => row.project.summary?.insights.length ?? null,
    render: (row) => <InsightChips insights={row.project.summary?.insights ?? []} />,
    csv: [
      {
        header: 'insights',
        value: (row) =>
          (row.project.summary?.insights ?? []).map((insight) => insightLabel(insight.kind)).join('; ') ||
          null,
      },
    ],
  },
  {
    id: 'auto_apply',
    label: 'Apply',
    width: 'minmax(64px, 96px)',
    // what waits for a person first, then the modes from the most automatic
    sortValue: (row) =>
      row.project.awaiting_approval ? 3 : applyModeRank[applyModeOf(row.project.settings)],
    render: (row) =>
      row.project.awaiting_approval ? (
        <Link
          className="awaiting-approval"
          to={`/projects/${encodeURIComponent(row.project.id)}`}
          title={`Recommendation ${row.project.awaiting_approval.recommendation_id} waits for approval`}
        >
          Awaiting approval
        </Link>
      ) : (
        <span className={applyModeOf(row.project.settings) === 'manual' ? 'muted' : 'toggle-on'}>
          {applyModeLabels[applyModeOf(row.project.settings)]}
        </span>
      ),
    csv: [
      { header: 'auto_apply', value: (row) => row.project.settings.autoApply },
      { header: 'apply_mode', value: (row) => applyModeOf(row.project.settings) },
      {
        header: 'awaiting_approval',
        value: (row) => row.project.awaiting_approval?.recommendation_id ?? null,
      },
    ],
  },
];
