import type { ApprovalResource, RecommendationDecisionResource as Decision } from '@setpoint/api-contract';
import { useState } from 'react';
import { messageOf } from '../../api/client.js';
import { endpoints } from '../../api/endpoints.js';

/**
 * "Awaiting approval": the learning run that waits for a person before Setpoint writes it (apply mode
 * approve-learning), with Approve and Reject for those who may change the project. It is dropped if the
 * project's next run starts first; the server says so when a button comes too late. The person deciding
 * reads what would change and the SLA first; the full reasoning is one click away, because it runs to a
 * paragraph that hides the change.
 */
export function AwaitingApproval({
  approval,
  decision,
  canDecide,
  onDecided,
}: {
  approval: ApprovalResource;
  /** The waiting recommendation's decision, when the page has it. */
  decision: Decision | null;
  canDecide: boolean;
  /** Told what happened (approved, rejected, or why not) once the request settled. */
  onDecided(message: string, ok: boolean): void;
}) {
  const [busy, setBusy] = useState(false);
  const decide = async (verb: 'approve' | 'reject') => {
    setBusy(true);
    try {
      if (verb === 'approve') {
        await endpoints.approveRecommendation(approval.project_id, approval.recommendation_id);
        onDecided('Approved: Setpoint is writing this learning run into the job.', true);
      } else {
        await endpoints.rejectRecommendation(approval.project_id, approval.recommendation_id);
        onDecided(
          'Rejected: this learning run is not written; the next run makes a new recommendation.',
          true,
        );
      }
    } catch (error) {
      onDecided(messageOf(error), false);
    } finally {
      setBusy(false);
    }
  };
  const run = approval.learning_run ? `Learning run ${approval.learning_run}` : 'A learning run';
  return (
    <div className="notice notice-warn" role="status" data-testid="awaiting-approval">
      <div>
        <strong>Awaiting approval.</strong> {run} was recommended{' '}
        {new Date(approval.waiting_since).toLocaleString()} and waits for a person before Setpoint writes it;
        it is dropped if the next run starts first.
        {decision && (
          <dl className="decision" data-testid="approval-decision">
            <dt>Change</dt>
            <dd>{decision.change}</dd>
            <dt>SLA</dt>
            <dd>{decision.sla_text}</dd>
          </dl>
        )}
        {approval.explanation &&
          (decision ? (
            <details data-testid="approval-explanation">
              <summary>Why this learning run</summary>
              <p className="muted">{approval.explanation}</p>
            </details>
          ) : (
            <div className="muted">{approval.explanation}</div>
          ))}
      </div>
      {canDecide && (
        <div className="toolbar">
          <button type="button" className="primary" disabled={busy} onClick={() => decide('approve')}>
            Approve
          </button>
          <button type="button" disabled={busy} onClick={() => decide('reject')}>
            Reject
          </button>
        </div>
      )}
    </div>
  );
}
