import type { AppliedChangeKind, AppliedConfigResource as AppliedConfig } from '@setpoint/api-contract';
import { formatDateTime } from '../../lib/format.js';

const kindLabels: Record<AppliedChangeKind, string> = {
  baseline: 'Before Setpoint (as imported)',
  apply: 'Applied',
  'auto-apply': 'Auto-applied',
  rollback: 'Rolled back',
  revert: 'Reverted (SLA guard)',
};

/** A baseline Setpoint found changed outside it is not the configuration as imported. */
const labelOf = (config: AppliedConfig) =>
  config.kind === 'baseline' && config.actor === 'external'
    ? 'Changed outside Setpoint'
    : kindLabels[config.kind];

/**
 * The one view of what Setpoint wrote into a project's cluster, on every platform: newest first, each
 * entry's configuration in its platform's words. Where a launcher takes the recommendations, the launches
 * that took one.
 */
export function AppliedChanges({ history, launcher }: { history: AppliedConfig[]; launcher: boolean }) {
  if (history.length === 0)
    return (
      <p className="muted" data-testid="nothing-applied">
        {launcher
          ? 'Nothing launched with a recommendation yet: each launch takes the latest one (the Airflow hook, or the RunJobFlow export) and appears here once its run is collected.'
          : "Nothing applied yet: Setpoint has not changed this project's cluster."}
      </p>
    );
  return (
    <table className="table" aria-label="Applied configurations" data-testid="applied-configs">
      <thead>
        <tr>
          <th>When</th>
          <th>What</th>
          <th>By</th>
          <th>Configuration</th>
        </tr>
      </thead>
      <tbody>
        {[...history].reverse().map((config) => (
          <tr key={config.id}>
            <td>{formatDateTime(config.created_at)}</td>
            <td>
              {labelOf(config)}
              {config.met_sla_at !== null && (
                <span className="muted small" data-testid="met-sla">
                  {' '}
                  · met the SLA
                </span>
              )}
              {config.reason && (
                // the reason of an auto-apply is the recommendation's whole explanation: two lines here,
                // all of it on hover and on the recommendation's card
                <div className="muted small clamped" title={config.reason}>
                  {config.reason}
                </div>
              )}
            </td>
            <td>{config.actor}</td>
            <td>
              <code className="wrap">{config.summary}</code>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
