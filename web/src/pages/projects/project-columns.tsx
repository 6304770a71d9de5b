import {
  type ApplyMode,
  applyModeOf,
  costKinds,
  type ProjectResource as Project,
} from '@setpoint/api-contract';
import { countOf, spendWindowDays } from '@setpoint/insights';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { InsightChips, insightLabel } from '../../components/insight-chips.js';
import { Missing } from '../../components/missing.js';
import { PhaseBadge, phaseLabel } from '../../components/phase-badge.js';
import type { FitColumn } from '../../lib/column-layout.js';
import { costKindLabel, kindsWithCost } from '../../lib/cost-kinds.js';
import type { CsvField } from '../../lib/csv-values.js';
import { formatExactMinutes, formatMinutes, formatPercent, formatUsd } from '../../lib/format.js';

export interface ProjectRow {
  project: Project;
  workspaceName: string;
}

/**
 * A Projects column. Its `minWidth` is its grid track's minimum: the minimums keep every default column
 * inside 1280 px. Below that the columns with a `fitRank` are left out, the Spend total (also in the KPI
 * header) first, then Workspace (also a filter), Last run (a failure also shows in Insights), Insights.
 */
export interface Column extends FitColumn {
  id: string;
  label: string;
  /**
   * Its grid track's maximum: the numbers' maximums are near their minimums, so the space a wider window
   * adds goes to the names (flexible tracks grow last).
   */
  maxWidth: string;
  align?: 'end';
  /**
   * Its text may take up to three lines of the row (names, a phase, a runtime over its SLA, "Awaiting
   * approval"), not one line cut short.
   */
  wraps?: boolean;
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
/** Savings at the organization's prices: what the KPI header sums. */
const savings = (row: ProjectRow) => row.project.summary?.savings?.to_date_usd ?? null;
const spend = (row: ProjectRow) => row.project.summary?.spend ?? null;
const slaHealth = (row: ProjectRow) => row.project.summary?.sla_health ?? null;

function slaHitCell(row: ProjectRow): ReactNode {
  const limit = sla(row);
  const health = slaHealth(row);
  if (limit === null) return <Missing reason="No SLA set: set one in the project's settings." />;
  if (!health || health.runs === 0) return <Missing reason="No finished run to judge against the SLA yet." />;
  const miss = health.last_miss;
  const newest = !miss
    ? ''
    : miss.failed
      ? ' The newest miss failed.'
      : ` The newest miss took ${formatExactMinutes(miss.runtime_minutes)}.`;
  return (
    <span
      className={health.at_risk ? 'over-sla' : undefined}
      data-testid="sla-hit"
      title={`${health.met} of the last ${countOf(health.runs, 'run')} met the ${formatExactMinutes(limit)} SLA; the target is ${formatPercent(health.target)}.${newest}`}
    >
      {health.met}/{health.runs} · {formatPercent(health.hit_rate)}
    </span>
  );
}
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
  // each figure stays on one line; in a narrow column the SLA goes under the runtime
  const figure = (value: number) => formatMinutes(value).replaceAll(' ', '\u00a0');
  const text = limit === null ? figure(minutes) : `${figure(minutes)}\u00a0/ ${figure(limit)}`;
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
    minWidth: 160,
    maxWidth: '2fr',
    fixed: true,
    wraps: true,
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
    minWidth: 100,
    maxWidth: '1fr',
    fitRank: 2,
    wraps: true,
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
    minWidth: 88,
    maxWidth: '100px',
    wraps: true,
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
    minWidth: 68,
    maxWidth: '80px',
    fitRank: 3,
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
    minWidth: 96,
    maxWidth: '140px',
    wraps: true,
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
    id: 'sla_hit',
    label: 'SLA hit, last 10',
    minWidth: 74,
    maxWidth: '84px',
    align: 'end',
    // "10/10 · 100%" is wider than the column: the rate goes under the count rather than being cut
    wraps: true,
    sortValue: (row) => slaHealth(row)?.hit_rate ?? null,
    render: slaHitCell,
    csv: [
      { header: 'sla_hit_rate', value: (row) => slaHealth(row)?.hit_rate ?? null },
      { header: 'sla_runs_judged', value: (row) => slaHealth(row)?.runs ?? null },
      { header: 'sla_runs_missed', value: (row) => slaHealth(row)?.missed ?? null },
      { header: 'sla_at_risk', value: (row) => slaHealth(row)?.at_risk ?? null },
    ],
  },
  {
    id: 'cost',
    label: 'Cost / run',
    minWidth: 64,
    maxWidth: '76px',
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
    id: 'spend',
    label: `Spend, ${spendWindowDays} d`,
    minWidth: 72,
    maxWidth: '84px',
    fitRank: 1,
    align: 'end',
    sortValue: (row) => spend(row)?.total_usd ?? null,
    render: (row) => {
      const totals = spend(row);
      if (!totals) return <Missing reason="No figures yet for this project." />;
      const split = kindsWithCost([totals.by_kind])
        .map((kind) => `${costKindLabel(kind)} ${formatUsd(totals.by_kind[kind])}`)
        .join(', ');
      return (
        <span
          title={`${countOf(totals.runs, 'run')} in the last ${spendWindowDays} days at your prices${split ? `: ${split}` : ''}`}
        >
          {formatUsd(totals.total_usd)}
        </span>
      );
    },
    csv: [
      { header: `spend_${spendWindowDays}d_usd`, value: (row) => spend(row)?.total_usd ?? null },
      ...costKinds.map((kind) => ({
        header: `spend_${spendWindowDays}d_${kind}_usd`,
        value: (row: ProjectRow) => spend(row)?.by_kind[kind] ?? null,
      })),
    ],
  },
  {
    id: 'savings',
    label: 'Savings to date',
    minWidth: 74,
    maxWidth: '90px',
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
      const atRisk = row.project.summary?.savings?.at_risk ?? false;
      return (
        <span
          className={atRisk ? 'over-sla' : undefined}
          data-testid={atRisk ? 'savings-at-risk' : undefined}
          title={`${formatPercent(roi.savings_fraction)} by ${methodLabel[roi.method]}, at your prices${atRisk ? '. At risk: fewer of the last runs met the SLA than the target, so these savings hold only once the misses stop.' : ''}`}
        >
          {formatUsd(savings(row))}
          {atRisk && <span className="miss-marker">at risk</span>}
        </span>
      );
    },
    csv: [
      { header: 'savings_to_date_usd', value: savings },
      { header: 'savings_at_risk', value: (row) => row.project.summary?.savings?.at_risk ?? null },
      { header: 'savings_fraction', value: (row) => row.project.summary?.roi?.savings_fraction ?? null },
      { header: 'savings_method', value: (row) => row.project.summary?.roi?.method ?? null },
    ],
  },
  {
    id: 'insights',
    label: 'Insights',
    minWidth: 64,
    maxWidth: '1.2fr',
    fitRank: 4,
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
    // "Approve" and "Awaiting" whole on a line: a mode's words never break inside
    minWidth: 74,
    maxWidth: '84px',
    wraps: true,
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
