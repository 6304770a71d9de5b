import type { RunResource as Run, RunDetailResource as RunDetail } from '@setpoint/api-contract';
import type { RunBillingResource as RunBilling } from '@setpoint/api-contract/databricks';
import { countOf, slaOutcome } from '@setpoint/insights';
import { Fragment, type ReactNode, useState } from 'react';
import { messageOf } from '../../api/client.js';
import { endpoints } from '../../api/endpoints.js';
import { clusterLabel } from '../../api/insight-runs.js';
import { ErrorNotice, Loading } from '../../components/load-view.js';
import { Missing, ValueOr } from '../../components/missing.js';
import { coreTimeMeasures } from '../../lib/core-time.js';
import { costKindColors, costKindLabel, formatCostComponent } from '../../lib/cost-kinds.js';
import {
  formatBytes,
  formatDateTime,
  formatExactMinutes,
  formatMinutes,
  formatPercent,
  formatUsd,
} from '../../lib/format.js';
import { formatRunCostSplit, runCostSplit } from '../../lib/run-cost.js';
import type { ProjectData } from './project-data.js';

type DetailLoad =
  | { state: 'loading' }
  | { state: 'ready'; detail: RunDetail }
  | { state: 'failed'; message: string };

const runtimeOf = (run: Run) =>
  run.started_at !== null && run.ended_at !== null ? (run.ended_at - run.started_at) / 60_000 : null;

const processing = (run: Run) => run.pipeline_state !== 'DONE' && run.pipeline_state !== 'FAILED';

/** Why a run has no runtime, cost or input size. */
function missingReason(run: Run, what: 'runtime' | 'cost' | 'input'): string {
  if (processing(run)) return 'The run is still running or being processed.';
  if (run.pipeline_state === 'FAILED') return 'Processing the run failed; see the run analysis.';
  if (what === 'runtime') return 'The run reported no start or end time.';
  if (what === 'cost') return 'Not priced: the cluster or its prices are unknown for this run.';
  return 'No Spark event log was read for this run.';
}

/** The run's cost; "pending" (with why on hover) while its platform's bill has not arrived, never $0. */
function CostCell({ run }: { run: Run }) {
  if (run.cost_pending)
    return (
      <span
        className="muted"
        title={`${run.cost_pending.message}: ${run.cost_pending.reason}`}
        data-testid="cost-pending"
      >
        pending
      </span>
    );
  return <ValueOr text={formatUsd(run.cost?.total_usd)} reason={missingReason(run, 'cost')} />;
}

/** The run's exact runtime, and a miss marker when it missed the SLA (insights' one definition of a miss). */
function RuntimeCell({ run, slaMinutes }: { run: Run; slaMinutes: number | null }) {
  const minutes = runtimeOf(run);
  const outcome = slaOutcome({ id: run.id, status: run.status, runtimeMinutes: minutes }, slaMinutes);
  const exact = formatExactMinutes(minutes);
  if (outcome !== 'missed' || slaMinutes === null)
    return <ValueOr text={exact} reason={missingReason(run, 'runtime')} />;
  const why =
    minutes !== null && minutes > slaMinutes
      ? `${exact} against the ${formatExactMinutes(slaMinutes)} SLA: ${formatExactMinutes(minutes - slaMinutes)} over`
      : `The run failed: it missed the ${formatExactMinutes(slaMinutes)} SLA`;
  return (
    <span className="over-sla" title={why} data-testid="sla-miss">
      {minutes === null ? '—' : exact} <span className="miss-marker">missed SLA</span>
    </span>
  );
}

/**
 * "$0.07 / $0.07", "$0.07 / pending" or "—" (no system tables); a restated bill says so; "— / …" when the run
 * was not estimated (a serverless run whose cost waited for its bill).
 */
function billingLabel(billing: RunBilling | undefined): ReactNode {
  if (!billing)
    return <Missing reason="No billing data: link a SQL warehouse to read system.billing.usage." />;
  const estimated = formatUsd(billing.estimated_dbu_usd);
  if (billing.billed_dbu_usd === null) return `${estimated} / pending`;
  return `${estimated} / ${formatUsd(billing.billed_dbu_usd)}${billing.restated ? ' (restated)' : ''}`;
}

export function RunsTab({ data }: { data: ProjectData }) {
  const [open, setOpen] = useState<string | null>(null);
  const [detail, setDetail] = useState<DetailLoad>({ state: 'loading' });
  const runs = [...data.runs].reverse();

  const toggle = (run: Run) => {
    if (open === run.id) {
      setOpen(null);
      return;
    }
    setOpen(run.id);
    setDetail({ state: 'loading' });
    endpoints.run(data.project.id, run.id).then(
      (loaded) => setDetail({ state: 'ready', detail: loaded }),
      (error: unknown) => setDetail({ state: 'failed', message: messageOf(error) }),
    );
  };

  if (runs.length === 0) return <p className="muted">No runs yet.</p>;
  // DBUs are Databricks' unit: a column of dashes on another platform's runs would say nothing
  const showsDbus = data.platform === 'databricks' || data.billing.size > 0;
  return (
    <table className="table runs" data-testid="runs-table">
      <thead>
        <tr>
          <th>Started</th>
          <th>Status</th>
          <th className="num">Runtime</th>
          <th className="num">Cost</th>
          {showsDbus && (
            <th
              className="num"
              title="DBU cost estimated from list prices / as billed (system.billing.usage)"
            >
              DBUs estimated / billed
            </th>
          )}
          <th className="num">Input</th>
          <th>Cluster</th>
          <th>Configured by</th>
        </tr>
      </thead>
      <tbody>
        {runs.map((run) => (
          <Fragment key={run.id}>
            <tr className="clickable" data-run-id={run.id}>
              <td>
                <button
                  type="button"
                  className="link-button"
                  aria-expanded={open === run.id}
                  onClick={() => toggle(run)}
                >
                  {open === run.id ? '▾' : '▸'} {formatDateTime(run.started_at ?? run.created_at)}
                </button>
              </td>
              <td>
                <span
                  className={`status status-${run.pipeline_state === 'FAILED' || (run.status && !/SUCC/i.test(run.status)) ? 'bad' : 'ok'}`}
                >
                  {run.pipeline_state === 'DONE' ? (run.status ?? 'done') : run.pipeline_state.toLowerCase()}
                </span>
              </td>
              <td className="num">
                <RuntimeCell run={run} slaMinutes={data.project.settings.slaMinutes ?? null} />
              </td>
              <td className="num">
                <CostCell run={run} />
              </td>
              {showsDbus && (
                <td className="num" data-testid="run-billing">
                  {billingLabel(data.billing.get(run.id))}
                </td>
              )}
              <td className="num">
                <ValueOr text={formatBytes(run.input_bytes)} reason={missingReason(run, 'input')} />
              </td>
              <td>{clusterLabel(run)}</td>
              <td>{run.on_recommendation_id ? 'Setpoint' : 'job definition'}</td>
            </tr>
            {open === run.id && (
              <tr className="drill-row">
                <td colSpan={showsDbus ? 8 : 7}>
                  {detail.state === 'loading' && <Loading label="Loading the run's analysis…" />}
                  {detail.state === 'failed' && <ErrorNotice message={detail.message} />}
                  {detail.state === 'ready' && <RunAnalysis detail={detail.detail} />}
                </td>
              </tr>
            )}
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}

/** The run's analysis report, as `setpoint analyze` prints it. */
function RunAnalysis({ detail }: { detail: RunDetail }) {
  const profile = detail.profile_summary;
  const split = runCostSplit(detail.cost);
  return (
    <div className="analysis" data-testid="run-analysis">
      {detail.error && <ErrorNotice message={`Processing failed: ${detail.error}`} />}
      {!profile ? (
        <p className="muted">No analysis yet (pipeline state {detail.pipeline_state.toLowerCase()}).</p>
      ) : (
        <>
          <dl className="facts">
            <dt>Application</dt>
            <dd>{profile.applicationName ?? profile.applicationId ?? '—'}</dd>
            <dt>Spark</dt>
            <dd>
              {profile.sparkVersion ?? '—'} on {profile.platform}
            </dd>
            <dt>Duration</dt>
            <dd>{formatMinutes(profile.durationMs === null ? null : profile.durationMs / 60_000)}</dd>
            <dt>Work</dt>
            <dd>
              {countOf(profile.jobs, 'job')} ({profile.failedJobs} failed), {countOf(profile.stages, 'stage')}
              , {profile.tasks.toLocaleString('en')} {profile.tasks === 1 ? 'task' : 'tasks'}
            </dd>
            <dt>Executors</dt>
            <dd>
              up to {profile.executorsMax} × {countOf(profile.coresPerExecutor, 'core')};{' '}
              <span className="noted" title={coreTimeMeasures.inTasks.help}>
                {coreTimeMeasures.inTasks.label.toLowerCase()} {formatPercent(profile.utilization)}
              </span>
              {profile.coreTimeOnCpu !== null && (
                <>
                  ,{' '}
                  <span className="noted" title={coreTimeMeasures.onCpu.help}>
                    {coreTimeMeasures.onCpu.label.toLowerCase()} {formatPercent(profile.coreTimeOnCpu)}
                  </span>
                </>
              )}
            </dd>
            <dt>Data</dt>
            <dd>
              input {formatBytes(profile.inputBytes)}, shuffle read {formatBytes(profile.shuffleReadBytes)},
              write {formatBytes(profile.shuffleWriteBytes)}, spill {formatBytes(profile.spillBytes)}
            </dd>
            <dt>Cost</dt>
            <dd>
              {detail.cost ? (
                <ul className="cost-components" data-testid="run-cost-components">
                  {detail.cost.components.map((component) => (
                    <li key={`${component.kind}|${component.fee}|${component.description}`}>
                      <span
                        className="swatch"
                        style={{ background: costKindColors[component.kind] }}
                        aria-hidden="true"
                      />
                      {costKindLabel(component.kind)}: {formatCostComponent(component)}
                    </li>
                  ))}
                  <li>
                    <strong>Total {formatUsd(detail.cost.total_usd)}</strong>
                    {detail.cost.high_usd - detail.cost.low_usd > 0.005 &&
                      ` (range ${formatUsd(detail.cost.low_usd)}–${formatUsd(detail.cost.high_usd)})`}
                  </li>
                </ul>
              ) : detail.cost_pending ? (
                <span data-testid="run-cost-pending">
                  {detail.cost_pending.message[0]!.toUpperCase() + detail.cost_pending.message.slice(1)}:{' '}
                  {detail.cost_pending.reason}.
                </span>
              ) : (
                '—'
              )}
            </dd>
            {split && (
              <>
                <dt>Cost split</dt>
                <dd data-testid="run-cost-split">{formatRunCostSplit(split)}</dd>
              </>
            )}
          </dl>
          <h3 className="section-title">Findings</h3>
          {profile.findings.length === 0 ? (
            <p className="muted">No findings.</p>
          ) : (
            <ul className="insight-list">
              {profile.findings.map((finding) => (
                <li key={finding.id} className={`insight insight-${finding.severity}`}>
                  <span className={`chip chip-${finding.severity}`}>{finding.severity}</span>{' '}
                  {finding.message}
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </div>
  );
}
