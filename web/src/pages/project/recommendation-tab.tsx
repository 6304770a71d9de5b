import type {
  RecommendationResource as Recommendation,
  RollbackResource,
  RunResource as Run,
} from '@setpoint/api-contract';
import { countOf } from '@setpoint/insights';
import { useEffect, useMemo, useState } from 'react';
import { ApiError } from '../../api/client.js';
import { codeEndpoints } from '../../api/code-endpoints.js';
import { endpoints } from '../../api/endpoints.js';
import { clusterKey, clusterLabel } from '../../api/insight-runs.js';
import { AutoApplyPaused } from '../../components/auto-apply-paused.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';
import { type ChartOption, EChart } from '../../components/echart.js';
import { NotAvailable } from '../../components/load-view.js';
import { diffConfigs, reviewLines } from '../../lib/config-diff.js';
import { formatDateTime, formatMinutes, formatUsd } from '../../lib/format.js';
import { useSession } from '../../shell/session.js';
import { useThemeName } from '../../shell/theme.js';
import { AppliedChanges } from './applied-changes.js';
import { CodeSourcePanel, ProposalDiff } from './code-source.js';
import { DecisionSummary } from './decision-summary.js';
import type { ProjectData } from './project-data.js';

/**
 * The cluster the job runs on now: the latest run's configuration, as its cluster report gave it or,
 * for a run reported only by its event log, as the server described it from the log's cluster tags.
 */
function currentConfig(runs: Run[]): Record<string, unknown> | null {
  return runs[runs.length - 1]?.cluster_config ?? null;
}

interface ParetoPoint {
  label: string;
  cost: number;
  runtime: number;
}

/** Configurations no other tried configuration beats on both cost and runtime. */
export function paretoFront(points: ParetoPoint[]): ParetoPoint[] {
  const sorted = [...points].sort((a, b) => a.runtime - b.runtime || a.cost - b.cost);
  const front: ParetoPoint[] = [];
  for (const point of sorted)
    if (front.length === 0 || point.cost < front[front.length - 1]!.cost) front.push(point);
  return front;
}

function triedConfigs(runs: Run[]): ParetoPoint[] {
  const groups = new Map<string, { label: string; costs: number[]; runtimes: number[] }>();
  for (const run of runs) {
    const key = clusterKey(run);
    if (!key || !run.cost || run.started_at === null || run.ended_at === null) continue;
    const group = groups.get(key) ?? { label: clusterLabel(run), costs: [], runtimes: [] };
    group.costs.push(run.cost.total_usd);
    group.runtimes.push((run.ended_at - run.started_at) / 60_000);
    groups.set(key, group);
  }
  const avg = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  return [...groups.values()].map((group) => ({
    label: `${group.label} (${countOf(group.costs.length, 'run')})`,
    cost: avg(group.costs),
    runtime: avg(group.runtimes),
  }));
}

export function RecommendationTab({ data, reload }: { data: ProjectData; reload(): void }) {
  const theme = useThemeName();
  const { canChange } = useSession();
  const [confirm, setConfirm] = useState<'apply' | 'propose' | 'rollback' | null>(null);
  const [proposalDiff, setProposalDiff] = useState<{ text: string; files: string[]; notes: string[] } | null>(
    null,
  );
  const [notice, setNotice] = useState<string | null>(null);
  const [requesting, setRequesting] = useState(false);
  const recommendations = data.recommendations;
  const latest = recommendations?.find((rec) => rec.state === 'SUCCESS') ?? null;
  const pending = recommendations?.find((rec) => rec.state === 'PENDING') ?? null;
  const current = currentConfig(data.runs);
  // A recommendation in progress is checked again every few seconds until it settles.
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(reload, 2000);
    return () => clearTimeout(timer);
  }, [pending, reload]);
  // a job whose configuration lives in code is changed by a proposal there, never through the API
  const route = data.code?.view.route ?? 'api';
  const proposing = confirm === 'propose' ? latest?.id : undefined;
  useEffect(() => {
    if (!proposing) return;
    setProposalDiff(null);
    let current = true;
    codeEndpoints.diff(data.project.id, proposing).then(
      (answer) => {
        if (current) setProposalDiff({ text: answer.diff, files: answer.files, notes: answer.notes });
      },
      (error: unknown) => {
        if (!current) return;
        setConfirm(null);
        setNotice(error instanceof Error ? error.message : String(error));
      },
    );
    return () => {
      current = false;
    };
  }, [proposing, data.project.id]);
  const diff = useMemo(
    () => (latest ? reviewLines(diffConfigs(current ?? {}, latest.configuration ?? {})) : []),
    [latest, current],
  );
  const applied = (recommendations ?? []).filter((rec) => rec.applied !== null);
  // What the job runs on now, as the integration wrote it; older servers only know what was applied.
  const written = data.appliedConfigs ?? [];
  const lastWritten = written[written.length - 1];
  const rolledBack =
    latest?.applied != null && (lastWritten?.kind === 'rollback' || lastWritten?.kind === 'revert');
  // a change of Setpoint's to undo (platforms that record changes have no baseline), or an earlier entry
  // where each launch takes a recommendation, the history records launches: nothing to write back
  const canRollBack =
    data.appliedWriter === 'launcher'
      ? false
      : data.appliedConfigs
        ? written.length > 1 ||
          written.some((config) => config.kind === 'apply' || config.kind === 'auto-apply')
        : applied.length > 0;
  const tried = useMemo(() => triedConfigs(data.runs), [data.runs]);
  const predicted = (recommendations ?? []).flatMap((rec) =>
    rec.predicted?.cost_usd
      ? [
          {
            label: `Prediction ${formatDateTime(rec.created_at)}`,
            cost: rec.predicted.cost_usd.mid,
            runtime: rec.predicted.runtime_minutes.mid,
          },
        ]
      : [],
  );
  const front = paretoFront(tried);
  const sla = data.project.settings.slaMinutes ?? null;

  if (recommendations === null) return <NotAvailable what="Recommendations" />;

  const requestNew = async () => {
    setRequesting(true);
    setNotice(null);
    try {
      await endpoints.requestRecommendation(data.project.id);
      reload();
    } catch (error) {
      setNotice(error instanceof Error ? error.message : String(error));
    } finally {
      setRequesting(false);
    }
  };

  const pareto: ChartOption = {
    grid: { left: 64, right: 24, top: 36, bottom: 48 },
    legend: { top: 0 },
    tooltip: {
      trigger: 'item',
      formatter: (params: { data: [number, number, string] }) =>
        `${params.data[2]}<br/>${formatMinutes(params.data[0])} · ${formatUsd(params.data[1])}`,
    },
    // Padded bounds, so a handful of nearly equal points do not stretch the axis to four decimals.
    xAxis: {
      type: 'value',
      name: 'runtime (min)',
      nameLocation: 'middle',
      nameGap: 28,
      min: (extent: { min: number }) => Math.max(0, Math.floor(extent.min * 0.8)),
      max: (extent: { max: number }) => Math.ceil(extent.max * 1.2),
    },
    yAxis: { type: 'value', name: 'cost per run (USD)', min: 0 },
    series: [
      {
        name: 'Tried',
        type: 'scatter',
        symbolSize: 11,
        itemStyle: { color: '#3b82f6' },
        data: tried.map((point) => [point.runtime, point.cost, point.label]),
        markLine:
          sla === null
            ? undefined
            : {
                symbol: 'none',
                silent: true,
                data: [
                  { xAxis: sla, label: { formatter: `SLA ${sla} min` }, lineStyle: { color: '#ef4444' } },
                ],
              },
      },
      {
        name: 'Predicted',
        type: 'scatter',
        symbol: 'diamond',
        symbolSize: 13,
        itemStyle: { color: '#f59e0b' },
        data: predicted.map((point) => [point.runtime, point.cost, point.label]),
      },
      {
        name: 'Pareto front',
        type: 'line',
        step: 'end',
        symbol: 'none',
        lineStyle: { type: 'dashed', color: '#10b981' },
        data: front.map((point) => [point.runtime, point.cost, point.label]),
      },
    ],
  };

  return (
    <div className="recommendation">
      {pending && (
        <p className="notice" role="status">
          A new recommendation is being computed from the latest run; it appears here when it is ready.
        </p>
      )}
      {notice && (
        <p className="notice" role="status">
          {notice}
        </p>
      )}
      {data.autoApplyPause && (
        <AutoApplyPaused
          reason={data.autoApplyPause.reason}
          canResume={canChange}
          resume={() => endpoints.resumeAutoApply(data.project.id)}
          onOutcome={(message) => {
            setNotice(message);
            reload();
          }}
          testId="auto-apply-paused"
        />
      )}
      {data.code && <CodeSourcePanel projectId={data.project.id} code={data.code} />}
      <div className="rec-header">
        <h2 className="section-title">Latest recommendation</h2>
        <span className="toolbar-spacer" />
        {canChange && (
          <>
            <button type="button" onClick={requestNew} disabled={requesting || pending !== null}>
              {pending ? 'Recommendation in progress…' : 'Generate new'}
            </button>
            <button
              type="button"
              onClick={() => setConfirm('rollback')}
              disabled={!canRollBack || lastWritten?.kind === 'baseline' || route !== 'api'}
            >
              Roll back
            </button>
            {route === 'code' ? (
              <button
                type="button"
                className="primary"
                onClick={() => setConfirm('propose')}
                disabled={!latest || latest.decision?.action === 'keep'}
              >
                Propose change
              </button>
            ) : (
              <button
                type="button"
                className="primary"
                onClick={() => setConfirm('apply')}
                disabled={
                  !latest ||
                  latest.applied !== null ||
                  latest.decision?.action === 'keep' ||
                  route === 'refuse'
                }
                title={
                  route === 'refuse'
                    ? (data.code?.view.route_reason ?? undefined)
                    : rolledBack
                      ? 'Rolled back; generate a new recommendation to apply again'
                      : undefined
                }
              >
                {rolledBack ? 'Rolled back' : latest?.applied ? 'Applied' : 'Apply'}
              </button>
            )}
          </>
        )}
      </div>
      {!latest ? (
        <p className="muted">
          No recommendation yet.{' '}
          {data.runs.length === 0
            ? 'One is made after the first analysed run.'
            : 'Generate one from the latest run.'}
        </p>
      ) : (
        <>
          <div className="metric-grid">
            <div className="metric">
              <span className="metric-label">Predicted runtime</span>
              <span className="metric-value">{formatMinutes(latest.predicted?.runtime_minutes.mid)}</span>
              <span className="metric-note">
                {formatMinutes(latest.predicted?.runtime_minutes.low)} –{' '}
                {formatMinutes(latest.predicted?.runtime_minutes.high)}
              </span>
            </div>
            <div className="metric">
              <span className="metric-label">Predicted cost per run</span>
              {latest.predicted?.cost_note ? (
                <>
                  <span className="metric-value small" data-testid="predicted-cost-pending">
                    not yet known
                  </span>
                  <span className="metric-note">{latest.predicted.cost_note}</span>
                </>
              ) : (
                <>
                  <span className="metric-value">{formatUsd(latest.predicted?.cost_usd?.mid)}</span>
                  <span className="metric-note">
                    {formatUsd(latest.predicted?.cost_usd?.low)} –{' '}
                    {formatUsd(latest.predicted?.cost_usd?.high)}
                  </span>
                </>
              )}
            </div>
            <div className="metric">
              <span className="metric-label">Made</span>
              <span className="metric-value small">{formatDateTime(latest.created_at)}</span>
              <span className="metric-note">{latest.phase ? `phase ${latest.phase.toLowerCase()}` : ''}</span>
            </div>
          </div>
          {latest.decision && <DecisionSummary decision={latest.decision} />}
          {latest.explanation && <p className="explanation">{latest.explanation}</p>}
          {latest.decision?.action === 'keep' ? (
            <p className="muted" data-testid="config-unchanged">
              Applying it writes nothing: the job already runs this cluster.
            </p>
          ) : (
            <table className="table diff" data-testid="config-diff">
              <thead>
                <tr>
                  <th>Setting</th>
                  <th>Current</th>
                  <th>Recommended</th>
                </tr>
              </thead>
              <tbody>
                {diff.map((line) => (
                  <tr key={line.path} className={line.changed ? 'diff-changed' : undefined}>
                    <td>
                      <code>{line.path}</code>
                    </td>
                    <td className={line.changed ? 'diff-old' : undefined}>{line.current ?? '—'}</td>
                    <td className={line.changed ? 'diff-new' : undefined}>{line.recommended ?? '—'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
      <h2 className="section-title">Cost vs runtime of every configuration</h2>
      {tried.length + predicted.length === 0 ? (
        <p className="muted">Nothing to plot yet.</p>
      ) : (
        <EChart
          option={pareto}
          theme={theme}
          height={320}
          label="Cost against runtime of each tried and predicted configuration"
          data={{ testid: 'pareto-chart', tried: tried.length, predicted: predicted.length }}
        />
      )}
      <h2 className="section-title">Applied configurations</h2>
      {data.appliedConfigs ? (
        <AppliedChanges history={written} launcher={data.appliedWriter === 'launcher'} />
      ) : applied.length === 0 ? (
        <p className="muted">Nothing applied yet.</p>
      ) : (
        <table className="table">
          <thead>
            <tr>
              <th>Applied</th>
              <th>By</th>
              <th>Configuration</th>
              <th className="num">Predicted cost</th>
            </tr>
          </thead>
          <tbody>
            {applied.map((rec: Recommendation) => (
              <tr key={rec.id}>
                <td>{formatDateTime(rec.applied!.requested_at)}</td>
                <td>{rec.applied!.requested_by ?? 'auto-apply'}</td>
                <td>
                  <code className="wrap">{JSON.stringify(rec.configuration)}</code>
                </td>
                <td className="num">{formatUsd(rec.predicted?.cost_usd?.mid)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ConfirmDialog
        open={confirm === 'apply'}
        title="Apply this recommendation?"
        confirmLabel="Apply to the job"
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          await endpoints.applyRecommendation(data.project.id, latest!.id);
          setNotice('Applied: the job uses the recommended cluster from its next run.');
          reload();
        }}
      >
        <p>
          Setpoint will update the job's cluster to the recommended configuration. The next run uses it. You
          can roll back afterwards.
        </p>
        <ul className="dialog-changes" data-testid="apply-changes">
          {diff
            .filter((line) => line.changed)
            .map((line) => (
              <li key={line.path}>
                <code>{line.path}</code>: {line.current ?? '—'} → {line.recommended ?? '—'}
              </li>
            ))}
        </ul>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === 'propose'}
        title="Propose this change in the code?"
        confirmLabel="Open the proposal"
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          const answer = await codeEndpoints.propose(data.project.id, latest!.id);
          setNotice('message' in answer ? answer.message : 'Proposed.');
          reload();
        }}
      >
        <p>
          Setpoint commits this change on its branch of the repository and opens (or updates) the pull
          request. The job changes when the team merges and deploys it.
        </p>
        <ProposalDiff diff={proposalDiff} />
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === 'rollback'}
        title="Roll back the job's cluster?"
        confirmLabel="Roll back"
        danger
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          let landed: RollbackResource;
          try {
            landed = await endpoints.rollback(data.project.id);
          } catch (error) {
            if (error instanceof ApiError && error.notAvailable) {
              throw new Error('Rollback is not available on this server.');
            }
            throw error;
          }
          setNotice(
            `Rolled back to ${landed.config.summary || 'the earlier configuration'}: the job runs on it from its next run.${
              landed.auto_apply_paused ? ' Auto-apply is paused until someone resumes it.' : ''
            }`,
          );
          reload();
        }}
      >
        <p>
          The job goes back to the newest earlier configuration whose runs met the SLA (the configuration it
          was imported with, if none did). Auto-apply pauses until someone resumes it.
        </p>
      </ConfirmDialog>
    </div>
  );
}
