import type { RecommendationDecisionResource as Decision } from '@setpoint/api-contract';

/** The ids of the fleet jobs the basis names (a project by its name in the words), for a hover. */
function closestIds(decision: Decision): string {
  return decision.basis.closest
    .filter((entry) => entry.source !== null)
    .map((entry) => `${entry.label}: ${entry.source}`)
    .join('\n');
}

/**
 * The decision behind the latest recommendation, read from the same object as its prediction and
 * configuration: what changes (or that nothing does), the SLA, what it rests on, what was left out. The
 * server words the SLA and the basis, so the card says what the explanation and the CLI say.
 */
export function DecisionSummary({ decision }: { decision: Decision }) {
  const infeasible = decision.sla.kind === 'project' && !decision.sla.feasible;
  return (
    <dl className="decision" data-testid="decision-summary">
      <dt>Change</dt>
      <dd data-testid="decision-change">
        {decision.action === 'keep' ? 'No change: the job keeps its cluster' : decision.change}
      </dd>
      <dt>SLA</dt>
      <dd data-testid="decision-sla" className={infeasible ? 'diff-old' : undefined}>
        {decision.sla_text}
      </dd>
      {decision.learning_text && (
        <>
          <dt>Learning</dt>
          <dd data-testid="decision-learning">{decision.learning_text}</dd>
        </>
      )}
      <dt>Based on</dt>
      <dd data-testid="decision-basis" title={closestIds(decision) || undefined}>
        {decision.basis_text}
      </dd>
      {decision.notes.length > 0 && (
        <>
          <dt>Notes</dt>
          <dd>
            <ul>
              {decision.notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          </dd>
        </>
      )}
      {decision.filters.length > 0 && (
        <>
          <dt>Left out</dt>
          <dd data-testid="decision-filters">
            <ul>
              {decision.filters.map((outcome) => (
                <li key={outcome.filter}>
                  <code>{outcome.filter}</code> removed {outcome.dropped}
                  {outcome.examples[0] ? `, e.g. ${outcome.examples[0]}` : ''}
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
    </dl>
  );
}
