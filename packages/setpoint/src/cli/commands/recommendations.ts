import type { Command } from '@commander-js/extra-typings';
import type {
  AppliedConfigListResource,
  ApprovalListResource,
  ApprovalResource,
  Page,
  ProposeResponse,
  RecommendationRequested,
  RecommendationResource,
  ResumeAutoApplyResource,
  RollbackBody,
  RollbackResource,
} from '@setpoint/api-contract';
import { AppError, ValidationError } from '@setpoint/foundation/errors';
import { examples } from '../help-text.js';
import { parseNumberOption } from '../option-values.js';
import { formatTime, printFields, printJson, printTable } from '../output.js';
import { startSpinner, waitForAbort } from '../progress.js';
import type { ApiClient } from '../remote/api-client.js';
import { remoteClient, withRemoteOptions } from '../remote/remote-command.js';

const recommendationPath = (project: string, id = '') =>
  `/api/v1/projects/${encodeURIComponent(project)}/recommendations${id ? `/${encodeURIComponent(id)}` : ''}`;

export function showRecommendation(rec: RecommendationResource): void {
  const predicted = rec.predicted;
  const decision = rec.decision;
  printFields([
    ['id', rec.id],
    ['state', rec.state],
    ['phase', rec.phase],
    ['change', decision ? decision.change : null],
    ['sla', decision ? decision.sla_text : null],
    ['learning', decision ? decision.learning_text : null],
    [
      'runtime',
      predicted
        ? `${predicted.runtime_minutes.mid.toFixed(1)} min (${predicted.runtime_minutes.low.toFixed(1)}–${predicted.runtime_minutes.high.toFixed(1)})`
        : null,
    ],
    [
      'cost',
      predicted?.cost_usd
        ? `$${predicted.cost_usd.mid.toFixed(2)} ($${predicted.cost_usd.low.toFixed(2)}–$${predicted.cost_usd.high.toFixed(2)})`
        : (predicted?.cost_note ?? null),
    ],
    ['basis', decision ? decision.basis_text : null],
    [
      'filtered',
      decision && decision.filters.length > 0
        ? decision.filters.map((outcome) => `${outcome.filter} −${outcome.dropped}`).join(', ')
        : null,
    ],
    ['why', rec.explanation],
    ['error', rec.error],
    [
      'applied',
      rec.applied
        ? `${formatTime(rec.applied.requested_at)} by ${rec.applied.requested_by ?? 'auto-apply'}`
        : 'no',
    ],
  ]);
  if (rec.configuration)
    process.stdout.write(`configuration\n${JSON.stringify(rec.configuration, null, 2)}\n`);
}

/** Polls until the recommendation leaves PENDING, with a bounded wait. */
export async function waitForRecommendation(
  client: ApiClient,
  project: string,
  id: string,
  timeoutSeconds: number,
): Promise<RecommendationResource> {
  const spinner = startSpinner(`waiting for recommendation ${id}`);
  const deadline = Date.now() + timeoutSeconds * 1000;
  try {
    for (;;) {
      const rec = await client.request<RecommendationResource>('GET', recommendationPath(project, id));
      if (rec.state !== 'PENDING') return rec;
      if (Date.now() > deadline)
        throw new AppError(
          'upstream',
          'RECOMMENDATION_TIMEOUT',
          `recommendation ${id} is still PENDING after ${timeoutSeconds}s`,
        );
      spinner.update(`waiting for recommendation ${id} (${rec.phase ?? 'pending'})`);
      await waitForAbort(500);
    }
  } finally {
    spinner.stop();
  }
}

function showApproval(approval: ApprovalResource): void {
  printFields([
    ['recommendation', approval.recommendation_id],
    ['project', approval.project_id],
    ['state', approval.state],
    ['learning run', approval.learning_run],
    ['waiting since', formatTime(approval.waiting_since)],
    [
      'decided',
      approval.decided_at ? `${formatTime(approval.decided_at)} by ${approval.decided_by ?? '?'}` : null,
    ],
    ['reason', approval.reason],
    ['why', approval.explanation],
  ]);
}

function finish(rec: RecommendationResource, json: boolean | undefined): void {
  if (json) printJson(rec);
  else showRecommendation(rec);
  if (rec.state === 'FAILURE') process.exitCode = 7;
}

export function registerRecommendationsCommand(program: Command): void {
  const recs = program
    .command('recommendations')
    .alias('recs')
    .description('generate, inspect, apply and roll back cluster recommendations')
    .addHelpText(
      'after',
      '\nExamples:\n  setpoint recommendations generate p_123 --wait\n  setpoint recommendations latest p_123 --json\n  setpoint recommendations apply p_123 r_456',
    );

  withRemoteOptions(
    recs
      .command('generate')
      .description('ask for a new recommendation')
      .addHelpText(
        'after',
        examples(
          'setpoint recommendations generate prj_8f2c1a --wait',
          'setpoint recs generate prj_8f2c1a --wait --timeout 600 --json',
        ),
      )
      .argument('<project>', 'project id'),
  )
    .option('--wait', 'wait until it is ready')
    .option('--timeout <seconds>', 'longest wait', '600')
    .action(async (project, options) => {
      const client = remoteClient(options);
      const requested = await client.request<RecommendationRequested>(
        'POST',
        recommendationPath(project),
        {},
      );
      if (!options.wait) {
        if (options.json) printJson(requested);
        else process.stdout.write(`requested ${requested.id} (${requested.state}); --wait waits for it\n`);
        return;
      }
      const timeout = parseNumberOption('--timeout', options.timeout, { above: 0 });
      finish(await waitForRecommendation(client, project, requested.id, timeout), options.json);
    });

  withRemoteOptions(
    recs
      .command('get')
      .description('one recommendation')
      .addHelpText(
        'after',
        examples(
          'setpoint recommendations get prj_8f2c1a rec_77b1',
          'setpoint recommendations get prj_8f2c1a rec_77b1 --wait',
        ),
      )
      .argument('<project>', 'project id')
      .argument('<recommendation>', 'recommendation id'),
  )
    .option('--wait', 'wait while it is PENDING')
    .option('--timeout <seconds>', 'longest wait', '600')
    .action(async (project, id, options) => {
      const client = remoteClient(options);
      const rec = options.wait
        ? await waitForRecommendation(
            client,
            project,
            id,
            parseNumberOption('--timeout', options.timeout, { above: 0 }),
          )
        : await client.request<RecommendationResource>('GET', recommendationPath(project, id));
      finish(rec, options.json);
    });

  withRemoteOptions(
    recs
      .command('latest')
      .description('the newest recommendation')
      .addHelpText(
        'after',
        examples('setpoint recommendations latest prj_8f2c1a', 'setpoint recs latest prj_8f2c1a --json'),
      )
      .argument('<project>', 'project id'),
  ).action(async (project, options) => {
    finish(
      await remoteClient(options).request<RecommendationResource>(
        'GET',
        recommendationPath(project, 'latest'),
      ),
      options.json,
    );
  });

  withRemoteOptions(
    recs
      .command('list')
      .description('all recommendations, newest first')
      .addHelpText('after', examples('setpoint recommendations list prj_8f2c1a'))
      .argument('<project>', 'project id'),
  ).action(async (project, options) => {
    const page = await remoteClient(options).request<Page<RecommendationResource>>(
      'GET',
      recommendationPath(project),
    );
    if (options.json) return printJson(page);
    printTable(
      ['ID', 'STATE', 'PHASE', 'CHANGE', 'RUNTIME', 'COST', 'APPLIED', 'CREATED'],
      page.items.map((rec) => [
        rec.id,
        rec.state,
        rec.phase,
        rec.decision ? (rec.decision.action === 'keep' ? 'no change' : 'change') : null,
        rec.predicted ? `${rec.predicted.runtime_minutes.mid.toFixed(1)}m` : null,
        rec.predicted?.cost_usd
          ? `$${rec.predicted.cost_usd.mid.toFixed(2)}`
          : rec.predicted
            ? 'not yet known'
            : null,
        rec.applied ? formatTime(rec.applied.requested_at) : 'no',
        formatTime(rec.created_at),
      ]),
    );
  });

  withRemoteOptions(
    recs
      .command('apply')
      .description('apply a recommendation to the job')
      .addHelpText('after', examples('setpoint recommendations apply prj_8f2c1a rec_77b1'))
      .argument('<project>', 'project id')
      .argument('<recommendation>', 'recommendation id'),
  ).action(async (project, id, options) => {
    // a project whose configuration lives in code answers with its proposal instead
    const answer = await remoteClient(options).request<RecommendationResource | ProposeResponse>(
      'POST',
      `${recommendationPath(project, id)}/apply`,
      {},
    );
    if (options.json) printJson(answer);
    else if ('message' in answer) process.stdout.write(`${answer.message}\n`);
    else process.stdout.write(`applied recommendation ${id} to project ${project}\n`);
  });

  withRemoteOptions(
    recs
      .command('awaiting')
      .description(
        "learning runs waiting for a person's approval (projects in apply mode approve-learning), newest first",
      )
      .addHelpText(
        'after',
        examples('setpoint recommendations awaiting', 'setpoint recs awaiting --project prj_8f2c1a --json'),
      )
      .option('--project <project>', "only this project's"),
  ).action(async (options) => {
    const query = new URLSearchParams({ state: 'waiting' });
    if (options.project) query.set('project_id', options.project);
    const result = await remoteClient(options).request<ApprovalListResource>(
      'GET',
      `/api/v1/approvals?${query}`,
    );
    if (options.json) {
      printJson(result);
      return;
    }
    if (result.items.length === 0) {
      process.stdout.write('nothing is waiting for approval\n');
      return;
    }
    printTable(
      ['project', 'recommendation', 'learning run', 'waiting since', 'why'],
      result.items.map((item) => [
        item.project_id,
        item.recommendation_id,
        item.learning_run,
        formatTime(item.waiting_since),
        item.explanation,
      ]),
    );
  });

  withRemoteOptions(
    recs
      .command('approve')
      .description(
        'approve a learning run waiting for approval: Setpoint writes it into the job (refused once the next run started, or while auto-apply is paused)',
      )
      .addHelpText('after', examples('setpoint recommendations approve prj_8f2c1a rec_77b1'))
      .argument('<project>', 'project id')
      .argument('<recommendation>', 'recommendation id (setpoint recommendations awaiting)'),
  ).action(async (project, id, options) => {
    const approval = await remoteClient(options).request<ApprovalResource>(
      'POST',
      `${recommendationPath(project, id)}/approve`,
      {},
    );
    if (options.json) printJson(approval);
    else
      process.stdout.write(`approved recommendation ${id}; Setpoint is writing it into project ${project}\n`);
  });

  withRemoteOptions(
    recs
      .command('reject')
      .description('reject a learning run waiting for approval: it is never written')
      .addHelpText(
        'after',
        examples(
          'setpoint recommendations reject prj_8f2c1a rec_77b1',
          'setpoint recommendations reject prj_8f2c1a rec_77b1 --reason "month-end close tonight"',
        ),
      )
      .argument('<project>', 'project id')
      .argument('<recommendation>', 'recommendation id (setpoint recommendations awaiting)')
      .option('--reason <text>', 'a note kept with the rejection (up to 500 characters)'),
  ).action(async (project, id, options) => {
    const reason = options.reason?.trim();
    if (options.reason !== undefined && (!reason || reason.length > 500))
      throw new ValidationError(
        'REJECT_REASON_INVALID',
        '--reason must be 1 to 500 characters of text (or leave --reason out)',
      );
    const approval = await remoteClient(options).request<ApprovalResource>(
      'POST',
      `${recommendationPath(project, id)}/reject`,
      reason ? { reason } : {},
    );
    if (options.json) printJson(approval);
    else showApproval(approval);
  });

  withRemoteOptions(
    recs
      .command('applied')
      .description(
        "what Setpoint wrote into the project's cluster, newest first, and whether auto-apply is paused",
      )
      .addHelpText(
        'after',
        examples('setpoint recommendations applied prj_8f2c1a', 'setpoint recs applied prj_8f2c1a --json'),
      )
      .argument('<project>', 'project id'),
  ).action(async (project, options) => {
    const result = await remoteClient(options).request<AppliedConfigListResource>(
      'GET',
      `/api/v1/projects/${encodeURIComponent(project)}/applied-configs`,
    );
    if (options.json) {
      printJson(result);
      return;
    }
    if (result.auto_apply_paused)
      process.stdout.write(`auto-apply is paused: ${result.pause_reason ?? 'paused'}\n`);
    const launcher = result.writer === 'launcher';
    if (result.items.length === 0) {
      process.stdout.write(
        launcher
          ? `nothing launched with a recommendation of project ${project} yet (each launch takes one: the Airflow hook, or setpoint export ${project})\n`
          : `nothing applied to project ${project} yet\n`,
      );
      return;
    }
    if (launcher)
      process.stdout.write(
        `the launcher writes project ${project}'s cluster: these are the launches that took a recommendation\n`,
      );
    printTable(
      ['id', 'when', 'what', 'by', 'configuration', 'recommendation'],
      [...result.items]
        .reverse()
        .map((item) => [
          item.id,
          formatTime(item.created_at),
          item.kind,
          item.actor,
          item.summary,
          item.recommendation_id,
        ]),
    );
  });

  withRemoteOptions(
    recs
      .command('rollback')
      .description('put back an earlier applied configuration')
      .addHelpText(
        'after',
        examples(
          'setpoint recommendations rollback prj_8f2c1a',
          'setpoint recommendations rollback prj_8f2c1a --to cfg_5a10',
        ),
      )
      .argument('<project>', 'project id')
      .option(
        '--to <config>',
        'the applied configuration to go back to (its id in `setpoint recommendations applied`; default: the newest before the current that met the SLA, else the configuration found when the project was linked)',
      ),
  ).action(async (project, options) => {
    const body: RollbackBody = options.to ? { to: options.to } : {};
    const result = await remoteClient(options).request<RollbackResource>(
      'POST',
      `/api/v1/projects/${encodeURIComponent(project)}/rollback`,
      body,
    );
    if (options.json) {
      printJson(result);
      return;
    }
    process.stdout.write(
      `rolled project ${project} back to ${result.config.summary || result.config.id} (${formatTime(result.config.created_at)})\n`,
    );
    if (result.auto_apply_paused)
      process.stdout.write(
        `auto-apply is paused until someone resumes it: setpoint recommendations resume ${project}\n`,
      );
  });

  withRemoteOptions(
    recs
      .command('resume')
      .description(
        'let auto-apply change the project again after a rollback, a revert or an outside edit paused it',
      )
      .addHelpText('after', examples('setpoint recommendations resume prj_8f2c1a'))
      .argument('<project>', 'project id'),
  ).action(async (project, options) => {
    const result = await remoteClient(options).request<ResumeAutoApplyResource>(
      'POST',
      `/api/v1/projects/${encodeURIComponent(project)}/resume-auto-apply`,
    );
    if (options.json) printJson(result);
    else process.stdout.write(`auto-apply resumed for project ${project}\n`);
  });
}
