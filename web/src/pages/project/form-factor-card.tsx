import type { FormFactorAdviceResource } from '@setpoint/api-contract';
import { useEffect, useState } from 'react';
import { messageOf } from '../../api/client.js';
import { endpoints } from '../../api/endpoints.js';
import { formatPercent, formatUsd } from '../../lib/format.js';

const verdictText: Record<FormFactorAdviceResource['verdict'], string> = {
  move: 'Move proposed',
  stay: 'Stay',
  estimate_only: 'Estimate only',
  no_estimate: 'No estimate',
};

/**
 * "Form factor": what the job would cost on serverless compute (or back on its job cluster), on what basis, and
 * a proposed move a person approves or dismisses. Setpoint never makes the move; the card says so.
 */
export function FormFactorCard({ projectId }: { projectId: string }) {
  const [advice, setAdvice] = useState<FormFactorAdviceResource | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let live = true;
    endpoints
      .formFactor(projectId)
      .then((loaded) => live && setAdvice(loaded))
      // a project whose platform gives no form-factor advice: the card stays away
      .catch(() => live && setAdvice(null));
    return () => {
      live = false;
    };
  }, [projectId]);
  if (!advice) return null;
  const decide = async (decision: 'approve' | 'dismiss') => {
    setBusy(true);
    try {
      setAdvice(await endpoints.decideFormFactor(projectId, decision));
      setMessage(
        decision === 'approve'
          ? 'Approved. Setpoint does not make the move: the team changes where the job runs (its tasks or its launch).'
          : 'Dismissed.',
      );
    } catch (error) {
      setMessage(messageOf(error));
    } finally {
      setBusy(false);
    }
  };
  const estimate = advice.estimate;
  return (
    <section className="form-factor" data-testid="form-factor">
      <h2 className="section-title">Form factor</h2>
      <p data-testid="form-factor-verdict">
        <strong>{verdictText[advice.verdict]}</strong>: {advice.change}
      </p>
      <p data-testid="form-factor-explanation">{advice.explanation}</p>
      <dl className="facts">
        <dt>Now, per run</dt>
        <dd>{formatUsd(advice.current_usd_per_run)}</dd>
        <dt>{advice.to === 'serverless' ? 'On serverless, per run' : 'On its job cluster, per run'}</dt>
        <dd>
          {estimate
            ? `${formatUsd(estimate.usd_per_run.mid)} (${formatUsd(estimate.usd_per_run.low)}–${formatUsd(estimate.usd_per_run.high)}, ${estimate.kind})`
            : '—'}
        </dd>
        {advice.probability_meets_sla !== null && (
          <>
            <dt>Meets the SLA</dt>
            <dd>{formatPercent(advice.probability_meets_sla)}</dd>
          </>
        )}
        {advice.check && (
          <>
            <dt>Estimate vs measured</dt>
            <dd>
              {formatUsd(advice.check.estimated_usd)} estimated, {formatUsd(advice.check.measured_usd)}{' '}
              measured ({formatPercent(advice.check.error)} off)
            </dd>
          </>
        )}
      </dl>
      <h3>Basis</h3>
      <ul data-testid="form-factor-basis">
        {advice.basis.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      {advice.proposal && (
        <p data-testid="form-factor-proposal">
          {advice.proposal.status === 'proposed' ? (
            <>
              <button type="button" disabled={busy} onClick={() => decide('approve')}>
                Approve move
              </button>{' '}
              <button type="button" disabled={busy} onClick={() => decide('dismiss')}>
                Dismiss
              </button>{' '}
              <span className="muted">Setpoint never makes this move itself.</span>
            </>
          ) : (
            `${advice.proposal.status === 'approved' ? 'Approved' : 'Dismissed'} by ${advice.proposal.decided_by ?? 'someone'}${advice.proposal.note ? `: ${advice.proposal.note}` : ''}.`
          )}
        </p>
      )}
      {message && <p role="status">{message}</p>}
    </section>
  );
}
