import type { ProjectResource as Project } from '@setpoint/api-contract';
import type { ReactNode } from 'react';
import { InsightChips, insightLabel } from '../../components/insight-chips.js';
import { PhaseBadge, phaseLabel } from '../../components/phase-badge.js';
import { dash, formatMinutes, formatPercent, formatUsd } from '../../lib/format.js';

export interface ProjectRow {
  project: Project;
  workspaceName: string;
}

export interface Column {
  id: string;
  label: string;
  /** CSS grid track. */
  width: string;
  align?: 'end';
  /** Sort key; null sorts last in both directions. */
  sortValue(row: ProjectRow): number | string | null;
  /** Plain text: what the CSV export writes and what search matches. */
  text(row: ProjectRow): string;
  render?(row: ProjectRow): ReactNode;
  /** Cannot be hidden. */
  fixed?: boolean;
}

const sla = (row: ProjectRow) => row.project.settings.slaMinutes ?? null;
const runtime = (row: ProjectRow) => row.project.summary?.last_run?.runtime_minutes ?? null;
const savings = (row: ProjectRow) => row.project.summary?.roi?.savings_to_date_usd ?? null;

const methodLabel = { cost_change: 'cost change', cost_per_gb_change: 'cost/GB change' } as const;

function runtimeVsSla(row: ProjectRow): string {
  const minutes = runtime(row);
  const limit = sla(row);
  if (minutes === null) return dash;
  return limit === null ? formatMinutes(minutes) : `${formatMinutes(minutes)} / ${formatMinutes(limit)}`;
}

export const projectColumns: Column[] = [
  {
    id: 'name',
    label: 'Project',
    width: 'minmax(200px, 2fr)',
    fixed: true,
    sortValue: (row) => row.project.name.toLowerCase(),
    text: (row) => row.project.name,
  },
  {
    id: 'workspace',
    label: 'Workspace',
    width: 'minmax(120px, 1fr)',
    sortValue: (row) => row.workspaceName.toLowerCase() || null,
    text: (row) => row.workspaceName,
  },
  {
    id: 'phase',
    label: 'Phase',
    width: '140px',
    sortValue: (row) => phaseLabel(row.project),
    text: (row) => phaseLabel(row.project),
    render: (row) => <PhaseBadge project={row.project} />,
  },
  {
    id: 'last_run',
    label: 'Last run',
    width: '110px',
    sortValue: (row) => row.project.summary?.last_run?.status ?? null,
    text: (row) => row.project.summary?.last_run?.status ?? '',
    render: (row) => {
      const status = row.project.summary?.last_run?.status;
      if (!status) return dash;
      return <span className={`status status-${/SUCC/i.test(status) ? 'ok' : 'bad'}`}>{status}</span>;
    },
  },
  {
    id: 'runtime',
    label: 'Runtime / SLA',
    width: '150px',
    align: 'end',
    sortValue: runtime,
    text: runtimeVsSla,
    render: (row) => {
      const minutes = runtime(row);
      const limit = sla(row);
      const over = minutes !== null && limit !== null && minutes > limit;
      return <span className={over ? 'over-sla' : undefined}>{runtimeVsSla(row)}</span>;
    },
  },
  {
    id: 'cost',
    label: 'Cost / run',
    width: '100px',
    align: 'end',
    sortValue: (row) => row.project.summary?.cost_per_run_usd ?? null,
    text: (row) => formatUsd(row.project.summary?.cost_per_run_usd),
  },
  {
    id: 'savings',
    label: 'Savings to date',
    width: '130px',
    align: 'end',
    sortValue: savings,
    text: (row) => {
      const roi = row.project.summary?.roi;
      return roi ? `${formatUsd(roi.savings_to_date_usd)} (${methodLabel[roi.method]})` : '';
    },
    render: (row) => {
      const roi = row.project.summary?.roi;
      if (!roi) return dash;
      return (
        <span title={`${formatPercent(roi.savings_fraction)} by ${methodLabel[roi.method]}`}>
          {formatUsd(roi.savings_to_date_usd)}
        </span>
      );
    },
  },
  {
    id: 'insights',
    label: 'Insights',
    width: 'minmax(140px, 1.2fr)',
    sortValue: (row) => row.project.summary?.insights.length ?? null,
    text: (row) =>
      (row.project.summary?.insights ?? []).map((insight) => insightLabel(insight.kind)).join('; '),
    render: (row) => <InsightChips insights={row.project.summary?.insights ?? []} />,
  },
  {
    id: 'auto_apply',
    label: 'Auto-apply',
    width: '96px',
    sortValue: (row) => (row.project.settings.autoApply ? 1 : 0),
    text: (row) => (row.project.settings.autoApply ? 'On' : 'Off'),
    render: (row) => (
      <span className={row.project.settings.autoApply ? 'toggle-on' : 'muted'}>
        {row.project.settings.autoApply ? 'On' : 'Off'}
      </span>
    ),
  },
];

export const defaultVisibleColumns = projectColumns.map((column) => column.id);
