import { predictedCostPendingMessage } from '@setpoint/api-contract';
import type { EditOutcome } from '../../iac/code-edit.js';
import type { RecommendationRecord } from '../recommendations/recommendation-records.js';
import { basisText, learningText, slaText } from '../recommender/decision.js';

export interface BeforeFigures {
  runId: string;
  runtimeMinutes: number | null;
  costUsd: number | null;
}

const minutes = (value: number) => `${value.toFixed(1)} min`;
const dollars = (value: number) => `$${value.toFixed(2)}`;

/** The pull request's title: what changes, in the card's words. */
export function proposalTitle(projectName: string, recommendation: RecommendationRecord): string {
  const change = recommendation.decision?.change ?? 'new cluster';
  return `Setpoint: ${projectName} — ${change}`.slice(0, 250);
}

/**
 * The pull request's description, for a reviewer who has not opened Setpoint: the change, the prediction
 * against the run it is based on (the figures the card and the explanation show), the SLA and its
 * probability, the evidence, what the edit touched, and the link to the project.
 */
export function proposalBody(parts: {
  projectName: string;
  projectUrl: string;
  recommendation: RecommendationRecord;
  before: BeforeFigures | null;
  outcome: EditOutcome;
}): string {
  const { recommendation: rec, before, outcome } = parts;
  const decision = rec.decision;
  const prediction = rec.prediction;
  const lines = [
    `Setpoint recommends a new cluster for **${parts.projectName}**${decision ? `: ${decision.change}` : ''}.`,
    '',
    '| | Now | Recommended |',
    '| --- | --- | --- |',
  ];
  if (prediction) {
    const runtime = prediction.runtimeMinutes;
    const cost = prediction.costUsd;
    lines.push(
      `| Runtime | ${before?.runtimeMinutes != null ? minutes(before.runtimeMinutes) : '—'} | ${minutes(runtime.mid)} (${minutes(runtime.low)}–${minutes(runtime.high)}) |`,
      `| Cost per run | ${before?.costUsd != null ? dollars(before.costUsd) : '—'} | ${cost ? `${dollars(cost.mid)} (${dollars(cost.low)}–${dollars(cost.high)})` : predictedCostPendingMessage} |`,
    );
  }
  lines.push('');
  if (before) lines.push(`"Now" is run ${before.runId}, the run the recommendation is based on.`, '');
  if (decision) {
    lines.push(`- **SLA:** ${slaText(decision)}`);
    lines.push(`- **Probability the run fails:** ${decision.probabilityFails.toFixed(2)}`);
    const learning = learningText(decision);
    if (learning) lines.push(`- **Learning:** ${learning}`);
    lines.push(`- **Based on:** ${basisText(decision.basis)}`);
    for (const note of decision.notes) lines.push(`- ${note}`);
  }
  if (rec.explanation) lines.push('', `> ${rec.explanation}`);
  lines.push('', '**What this changes**', '');
  for (const change of outcome.changes) lines.push(`- \`${change.path}\``);
  for (const note of outcome.notes) lines.push(`- ${note}`);
  lines.push(
    '',
    `Only the cluster fields Setpoint manages were edited; every other line is as it was. Merge and deploy as you normally do: Setpoint sees the new cluster on the job's next run and records this change as applied.`,
    '',
    `Recommendation \`${rec.id}\` · [Open ${parts.projectName} in Setpoint](${parts.projectUrl})`,
  );
  return lines.join('\n');
}
