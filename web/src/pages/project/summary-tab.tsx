import { countOf, type ProjectSummary, slaHealthWindow } from '@setpoint/insights';
import { formatExactMinutes, formatMinutes, formatPercent, formatUsd } from '../../lib/format.js';
import { FormFactorCard } from './form-factor-card.js';
import type { ProjectData } from './project-data.js';

const methodText = {
  cost_change: 'by cost change',
  cost_per_gb_change: 'by cost/GB change',
} as const;

const reasonText: Record<string, string> = {
  strong_correlation_larger_saving:
    'runtime follows input size closely, so the larger of the two savings counts',
  weak_correlation_cost_change: 'runtime does not follow input size, so the plain cost change counts',
  cost_rose_with_data_growth: 'cost rose because the input grew, so the cost per GB counts',
  no_input_sizes: 'runs report no input size, so the plain cost change counts',
};

function Metric({
  label,
  value,
  note,
  testId,
  atRisk = false,
}: {
  label: string;
  value: string;
  note?: string;
  testId?: string;
  atRisk?: boolean;
}) {
  return (
    <div className="metric" data-testid={testId} data-at-risk={atRisk ? 'true' : undefined}>
      <span className="metric-label">{label}</span>
      <span className={atRisk ? 'metric-value over-sla' : 'metric-value'}>{value}</span>
      {note && <span className="metric-note">{note}</span>}
    </div>
  );
}

export function SummaryTab({ data, summary }: { data: ProjectData; summary: ProjectSummary }) {
  const roi = summary.roi;
  const health = summary.slaHealth;
  const sla = data.project.settings.slaMinutes ?? null;
  const baselineRuntime = (() => {
    const first = data.runs.filter(
      (run) => run.on_recommendation_id === null && run.started_at && run.ended_at,
    );
    if (first.length === 0) return null;
    return first.reduce((sum, run) => sum + (run.ended_at! - run.started_at!) / 60_000, 0) / first.length;
  })();
  if (data.runs.length === 0) {
    return (
      <div className="empty-state">
        <h2>No runs yet</h2>
        <p>Figures appear after the job's first run is received and analysed.</p>
      </div>
    );
  }
  return (
    <div className="summary">
      <div className="metric-grid">
        <Metric
          label="Cost per run"
          value={formatUsd(summary.costPerRunUsd)}
          note={
            roi ? `baseline ${formatUsd(roi.baselineCostPerRunUsd)}` : 'average of the last 5 successful runs'
          }
          testId="summary-cost"
        />
        <Metric
          label="Runtime"
          value={formatMinutes(summary.runtimeMinutes)}
          note={baselineRuntime === null ? undefined : `baseline ${formatMinutes(baselineRuntime)}`}
        />
        <Metric
          label="Savings to date"
          value={roi ? formatUsd(roi.savingsToDateUsd) : '—'}
          note={
            roi
              ? `${formatPercent(roi.savingsFraction)} ${methodText[roi.method]}${health.atRisk ? '; at risk while the SLA is missed' : ''}`
              : 'after the first run on a Setpoint configuration'
          }
          testId="summary-savings"
          atRisk={health.atRisk && roi !== null}
        />
        <Metric
          label="Projected 12-month savings"
          value={roi ? formatUsd(roi.projected12MonthSavingsUsd) : '—'}
          note={
            roi
              ? `${countOf(Math.round(roi.runsPerYear), 'run')} a year at the current cadence`
              : 'after the first run on a Setpoint configuration'
          }
        />
        <Metric
          label={`SLA hit rate, last ${slaHealthWindow} runs`}
          value={sla === null ? 'No SLA' : formatPercent(health.hitRate)}
          note={
            sla === null
              ? 'set one in Settings'
              : health.runs === 0
                ? 'no finished run to judge yet'
                : `${health.met} of ${health.runs} within ${formatExactMinutes(sla)}; target ${formatPercent(health.target)}${health.atRisk ? ': at risk' : ''}`
          }
          testId="summary-sla"
          atRisk={health.atRisk}
        />
      </div>
      {roi && (
        <p className="roi-method" data-testid="roi-method">
          Savings are measured {methodText[roi.method]}: {reasonText[roi.reason] ?? roi.reason}
          {roi.correlation === null
            ? ''
            : ` (input size ↔ runtime correlation ${roi.correlation.toFixed(2)})`}
          .
        </p>
      )}
      <h2 className="section-title">Insights</h2>
      {summary.insights.length === 0 ? (
        <p className="muted">Nothing unusual in the recent runs.</p>
      ) : (
        <ul className="insight-list" data-testid="insight-list">
          {summary.insights.map((insight) => (
            <li key={insight.kind} className={`insight insight-${insight.severity}`}>
              <span className={`chip chip-${insight.severity}`}>{insight.severity}</span> {insight.message}
            </li>
          ))}
        </ul>
      )}
      {data.project.job_id && data.project.workspace_id && <FormFactorCard projectId={data.project.id} />}
    </div>
  );
}
