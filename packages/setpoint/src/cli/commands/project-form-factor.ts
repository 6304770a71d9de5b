import type { Command } from '@commander-js/extra-typings';
import type { FormFactorAdviceResource } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import { examples } from '../help-text.js';
import { formatTime, formatUsd, printFields, printJson } from '../output.js';
import { remoteClient, withRemoteOptions } from '../remote/remote-command.js';

/** The advice for people: the move, the two costs, the verdict with its reason, then its basis line by line. */
function showFormFactor(advice: FormFactorAdviceResource): void {
  const estimate = advice.estimate;
  const proposal = advice.proposal;
  printFields([
    ['project', advice.project_id],
    ['move', advice.change],
    ['verdict', advice.verdict.replace('_', ' ')],
    ['now per run', formatUsd(advice.current_usd_per_run)],
    [
      `${advice.to} per run`,
      estimate
        ? `${formatUsd(estimate.usd_per_run.mid)} (${formatUsd(estimate.usd_per_run.low)}–${formatUsd(estimate.usd_per_run.high)}, ${estimate.kind})`
        : '—',
    ],
    ['saving per run', formatUsd(advice.saving_usd_per_run)],
    ['P(meets SLA)', advice.probability_meets_sla === null ? '—' : advice.probability_meets_sla.toFixed(2)],
    [
      'proposal',
      proposal
        ? `${proposal.status}${proposal.decided_by ? ` by ${proposal.decided_by} ${formatTime(proposal.decided_at)}` : ''}${proposal.note ? ` (${proposal.note})` : ''}`
        : '—',
    ],
    [
      'check',
      advice.check
        ? `estimated ${formatUsd(advice.check.estimated_usd)}, measured ${formatUsd(advice.check.measured_usd)} (${(advice.check.error * 100).toFixed(0)}% off)`
        : '—',
    ],
    ['why', advice.reason],
  ]);
  process.stdout.write(`\nBasis:\n${advice.basis.map((line) => `  - ${line}`).join('\n')}\n`);
}

/**
 * `projects form-factor`: what a job would cost on serverless compute (or back on a cluster: Databricks, EMR),
 * on what basis, and a person's approval or dismissal of a proposed move (Setpoint never makes the move).
 */
export function registerFormFactorCommand(projects: Command): void {
  withRemoteOptions(
    projects
      .command('form-factor')
      .description(
        'what the job would cost on serverless compute or its job cluster, on what basis; approve or dismiss a proposed move (never made by Setpoint)',
      )
      .addHelpText(
        'after',
        examples(
          'setpoint projects form-factor prj_8f2c1a',
          'setpoint projects form-factor prj_8f2c1a --approve --note "after the quarter close"',
          'setpoint projects form-factor prj_8f2c1a --dismiss --json',
        ),
      )
      .argument('<project>', 'project id')
      .option('--approve', 'approve the proposed move (recorded; the team makes the move in the job)')
      .option('--dismiss', 'dismiss the proposed move')
      .option('--note <text>', 'why, kept with the decision (up to 500 characters)'),
  ).action(async (id, options) => {
    if (options.approve && options.dismiss)
      throw new ValidationError('INVALID_OPTION', 'pass --approve or --dismiss, not both');
    if (options.note !== undefined && !options.approve && !options.dismiss)
      throw new ValidationError('INVALID_OPTION', '--note goes with --approve or --dismiss');
    const client = remoteClient(options);
    const path = `/api/v1/projects/${encodeURIComponent(id)}/form-factor`;
    const decision = options.approve ? 'approve' : options.dismiss ? 'dismiss' : undefined;
    const advice = decision
      ? await client.request<FormFactorAdviceResource>('POST', `${path}/decision`, {
          decision,
          ...(options.note === undefined ? {} : { note: options.note }),
        })
      : await client.request<FormFactorAdviceResource>('GET', path);
    if (options.json) printJson(advice);
    else showFormFactor(advice);
  });
}
