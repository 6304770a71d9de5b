import type { RunResource as Run } from '@setpoint/api-contract';
import { useMemo, useState } from 'react';
import { messageOf } from '../../api/client.js';
import {
  type EmrAppliedConfigResource,
  type EmrExportFormat,
  emrEndpoints,
} from '../../api/emr-endpoints.js';
import { useApi } from '../../api/use-api.js';
import { AutoApplyPaused } from '../../components/auto-apply-paused.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';
import { LoadView } from '../../components/load-view.js';
import { formatDateTime, formatMinutes, formatUsd } from '../../lib/format.js';
import { formatRunCostSplit, runCostSplit } from '../../lib/run-cost.js';
import { useSession } from '../../shell/session.js';
import { DecisionSummary } from '../project/decision-summary.js';
import type { ProjectData } from '../project/project-data.js';
import { compareGroups, groupsOfRunJobFlow, groupsOfRunReport, roleName } from './emr-groups.js';

/** A run's EMR cluster and step, from its external id `j-…:s-…`. */
function stepOf(run: Run): { clusterId: string; stepId: string } {
  const [clusterId = run.external_run_id, stepId = ''] = run.external_run_id.split(':');
  return { clusterId, stepId };
}

const appliedKinds: Record<EmrAppliedConfigResource['kind'], string> = {
  apply: 'Applied',
  'auto-apply': 'Auto-applied',
  rollback: 'Rolled back',
  revert: 'Reverted (SLA guard)',
};

function describeAction(action: EmrAppliedConfigResource['actions'][number]): string {
  if (action.kind === 'instance-group')
    return `${action.instance_group_id}: ${action.from} → ${action.to} instances`;
  if (action.kind === 'instance-fleet')
    return `${action.instance_fleet_id}: ${action.from.on_demand}+${action.from.spot} → ${action.to.on_demand}+${action.to.spot} (on-demand+spot units)`;
  const limits = (value: typeof action.to | null) =>
    value ? `${value.MinimumCapacityUnits}–${value.MaximumCapacityUnits} ${value.UnitType}` : 'none';
  return `managed scaling ${limits(action.from)} → ${limits(action.to)}`;
}

/**
 * An EMR project's own section: its steps, the recommended node groups against the latest run's, the
 * resizes Setpoint made to a long-running cluster (apply, roll back, resume auto-apply), and the exports
 * a transient cluster's launcher takes (RunJobFlow JSON, Terraform).
 */
export function EmrProjectTab({ data, reload }: { data: ProjectData; reload(): void }) {
  const { canChange } = useSession();
  const projectId = data.project.id;
  const history = useApi(`emr-applied:${projectId}`, (signal) =>
    emrEndpoints.appliedConfigs(projectId, signal),
  );
  const [confirm, setConfirm] = useState<'apply' | 'rollback' | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [exported, setExported] = useState<{ format: EmrExportFormat; text: string } | null>(null);
  const [exportError, setExportError] = useState<string | null>(null);
  const latest = data.recommendations?.find((rec) => rec.state === 'SUCCESS') ?? null;
  const lastRun = data.runs.at(-1) ?? null;
  const groups = useMemo(
    () =>
      compareGroups(
        groupsOfRunReport(lastRun?.cluster_config ?? null),
        groupsOfRunJobFlow(latest?.configuration ?? null),
      ),
    [lastRun, latest],
  );
  const refresh = () => {
    history.reload();
    reload();
  };
  const showExport = async (format: EmrExportFormat) => {
    setExportError(null);
    try {
      setExported({ format, text: await emrEndpoints.exportText(projectId, format) });
    } catch (error) {
      setExported(null);
      setExportError(messageOf(error));
    }
  };

  return (
    <div className="recommendation" data-testid="emr-project">
      {notice && (
        <p className="notice notice-ok" role="status">
          {notice}
        </p>
      )}
      <h2 className="section-title">Steps</h2>
      {data.runs.length === 0 ? (
        <p className="muted">No step collected yet: imported steps appear here once collected.</p>
      ) : (
        <table className="table" aria-label="EMR steps" data-testid="emr-steps">
          <thead>
            <tr>
              <th>Cluster</th>
              <th>Step</th>
              <th>Started</th>
              <th className="num">Runtime</th>
              <th className="num">Cost</th>
              <th
                className="num"
                title="Billed outside the Spark application: provisioning, bootstrap, idle time and termination"
              >
                Of which overhead
              </th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {[...data.runs].reverse().map((run) => {
              const { clusterId, stepId } = stepOf(run);
              const split = runCostSplit(run.cost);
              return (
                <tr key={run.id}>
                  <td>
                    <code>{clusterId}</code>
                  </td>
                  <td>
                    <code>{stepId}</code>
                  </td>
                  <td>{run.started_at ? formatDateTime(run.started_at) : '—'}</td>
                  <td className="num">
                    {run.started_at && run.ended_at
                      ? formatMinutes((run.ended_at - run.started_at) / 60_000)
                      : '—'}
                  </td>
                  <td className="num">{run.cost ? formatUsd(run.cost.total_usd) : '—'}</td>
                  <td className="num" title={split ? formatRunCostSplit(split) : undefined}>
                    {split
                      ? `${formatUsd(split.overheadUsd)} · ${formatMinutes(split.overheadMinutes)}`
                      : '—'}
                  </td>
                  <td>
                    {run.status ?? run.pipeline_state}
                    {run.error && <div className="muted small">{run.error}</div>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}

      <div className="rec-header">
        <h2 className="section-title">Recommended cluster</h2>
        <span className="toolbar-spacer" />
        {canChange && (
          <>
            <button type="button" onClick={() => setConfirm('rollback')}>
              Roll back
            </button>
            <button
              type="button"
              className="primary"
              onClick={() => setConfirm('apply')}
              disabled={!latest || latest.decision?.action === 'keep'}
            >
              Apply to the cluster
            </button>
          </>
        )}
      </div>
      {!latest ? (
        <p className="muted">No recommendation yet: one is made after the first analysed step.</p>
      ) : (
        <>
          {latest.decision && <DecisionSummary decision={latest.decision} />}
          {latest.explanation && <p className="explanation">{latest.explanation}</p>}
          <p className="muted">
            Predicted {formatMinutes(latest.predicted?.runtime_minutes.mid)} and{' '}
            {formatUsd(latest.predicted?.cost_usd.mid)} per run · made {formatDateTime(latest.created_at)}
          </p>
          <table className="table diff" aria-label="Node groups" data-testid="emr-groups">
            <thead>
              <tr>
                <th>Group</th>
                <th>Latest run</th>
                <th>Recommended</th>
              </tr>
            </thead>
            <tbody>
              {groups.map((group) => (
                <tr key={group.role} className={group.changed ? 'diff-changed' : undefined}>
                  <td>{roleName(group.role)}</td>
                  <td className={group.changed ? 'diff-old' : undefined}>
                    {group.current ? `${group.current.nodes} · ${group.current.market}` : '—'}
                  </td>
                  <td className={group.changed ? 'diff-new' : undefined}>
                    {group.recommended ? `${group.recommended.nodes} · ${group.recommended.market}` : '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}

      <h2 className="section-title">Changes Setpoint made to the cluster</h2>
      <LoadView result={history.result} what="Applied configurations" onRetry={history.reload}>
        {(answer) => (
          <>
            {answer.auto_apply_paused && (
              <AutoApplyPaused
                reason={answer.pause_reason}
                canResume={canChange}
                resume={() => emrEndpoints.resumeAutoApply(projectId)}
                onOutcome={(message) => {
                  setNotice(message);
                  history.reload();
                }}
                testId="emr-auto-apply-paused"
              />
            )}
            {answer.items.length === 0 ? (
              <p className="muted" data-testid="emr-nothing-applied">
                Nothing applied yet: Setpoint has not changed this workload's cluster.
              </p>
            ) : (
              <table className="table" aria-label="Applied configurations" data-testid="emr-applied">
                <thead>
                  <tr>
                    <th>When</th>
                    <th>What</th>
                    <th>By</th>
                    <th>Cluster</th>
                    <th>Changes</th>
                  </tr>
                </thead>
                <tbody>
                  {[...answer.items].reverse().map((config) => (
                    <tr key={config.id}>
                      <td>{formatDateTime(config.created_at)}</td>
                      <td>
                        {appliedKinds[config.kind]}
                        {config.reason && <div className="muted small">{config.reason}</div>}
                      </td>
                      <td>{config.actor}</td>
                      <td>
                        <code>{config.cluster_id}</code>
                      </td>
                      <td>
                        <ul className="plain-list">
                          {config.actions.map((action) => (
                            <li key={describeAction(action)}>{describeAction(action)}</li>
                          ))}
                        </ul>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </>
        )}
      </LoadView>

      <h2 className="section-title">Export for the next launch</h2>
      <p className="muted">
        Transient clusters take the recommendation when they are launched: paste the RunJobFlow block into the
        launcher (or let the Airflow hook merge it), or keep <code>aws_emr_cluster</code> in Terraform.
      </p>
      <div className="form-actions">
        <button type="button" onClick={() => void showExport('json')} disabled={!latest}>
          RunJobFlow JSON
        </button>
        <button type="button" onClick={() => void showExport('terraform')} disabled={!latest}>
          Terraform
        </button>
      </div>
      {exportError && (
        <p className="notice notice-error" role="alert">
          {exportError}
        </p>
      )}
      {exported && (
        <figure className="export">
          <figcaption>
            {exported.format === 'json' ? 'RunJobFlow (JSON)' : 'Terraform (HCL)'} ·{' '}
            <a
              href={`data:text/plain;charset=utf-8,${encodeURIComponent(exported.text)}`}
              download={`${data.project.name}.${exported.format === 'json' ? 'json' : 'tf'}`}
            >
              Download
            </a>
          </figcaption>
          <pre data-testid="emr-export">{exported.text}</pre>
        </figure>
      )}

      <ConfirmDialog
        open={confirm === 'apply'}
        title="Resize the cluster to this recommendation?"
        confirmLabel="Resize the cluster"
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          const result = await emrEndpoints.apply(projectId, latest!.id);
          setNotice(
            result.config
              ? `Applied: ${result.actions.map(describeAction).join('; ')}.`
              : 'The cluster already matches the recommendation: nothing was changed.',
          );
          refresh();
        }}
      >
        <p>
          Setpoint resizes the workload's long-running cluster (task capacity, fleet targets, managed scaling
          limits) under its guardrails and records the change, so it can be rolled back. A workload on
          transient clusters takes the recommendation at its next launch instead.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirm === 'rollback'}
        title="Roll back Setpoint's last change?"
        confirmLabel="Roll back"
        danger
        onClose={() => setConfirm(null)}
        onConfirm={async () => {
          const result = await emrEndpoints.rollback(projectId);
          setNotice(`Rolled back ${result.undone.length} change(s): the cluster has its earlier size again.`);
          refresh();
        }}
      >
        <p>The cluster goes back to the size it had before Setpoint's latest change.</p>
      </ConfirmDialog>
    </div>
  );
}

/** The project page's tab for projects of EMR accounts (workspaces of platform `emr`). */
export const emrProjectTab = {
  id: 'emr',
  label: 'EMR cluster',
  platform: 'emr',
  Tab: EmrProjectTab,
} as const;
