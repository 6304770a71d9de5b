import type { ExportFormat, RunResource as Run } from '@setpoint/api-contract';
import { useMemo, useState } from 'react';
import { messageOf } from '../../api/client.js';
import { endpoints } from '../../api/endpoints.js';
import { formatDateTime, formatMinutes, formatUsd } from '../../lib/format.js';
import { formatRunCostSplit, runCostSplit } from '../../lib/run-cost.js';
import { DecisionSummary } from '../project/decision-summary.js';
import type { ProjectData } from '../project/project-data.js';
import { compareGroups, groupsOfRunJobFlow, groupsOfRunReport, roleName } from './emr-groups.js';

/** A run's EMR cluster and step, from its external id `j-…:s-…`. */
function stepOf(run: Run): { clusterId: string; stepId: string } {
  const [clusterId = run.external_run_id, stepId = ''] = run.external_run_id.split(':');
  return { clusterId, stepId };
}

/**
 * An EMR project's own section: its steps, the recommended node groups against the latest run's, and the
 * exports a transient cluster's launcher takes (RunJobFlow JSON, Terraform). Applying, rolling back and
 * the history of what Setpoint changed are on the Recommendation tab, the same on every platform.
 */
export function EmrProjectTab({ data }: { data: ProjectData; reload(): void }) {
  const projectId = data.project.id;
  const [exported, setExported] = useState<{ format: ExportFormat; text: string } | null>(null);
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
  const showExport = async (format: ExportFormat) => {
    setExportError(null);
    try {
      setExported({ format, text: await endpoints.exportText(projectId, format) });
    } catch (error) {
      setExported(null);
      setExportError(messageOf(error));
    }
  };

  return (
    <div className="recommendation" data-testid="emr-project">
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

      <h2 className="section-title">Recommended cluster</h2>
      {!latest ? (
        <p className="muted">No recommendation yet: one is made after the first analysed step.</p>
      ) : (
        <>
          {latest.decision && <DecisionSummary decision={latest.decision} />}
          {latest.explanation && <p className="explanation">{latest.explanation}</p>}
          <p className="muted">
            Predicted {formatMinutes(latest.predicted?.runtime_minutes.mid)} and{' '}
            {formatUsd(latest.predicted?.cost_usd?.mid)} per run · made {formatDateTime(latest.created_at)}
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
