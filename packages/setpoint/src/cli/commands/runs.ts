import { statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import type { Page, RunDetailResource, RunResource } from '@setpoint/api-contract';
import type { CollectRunQueued } from '@setpoint/api-contract/databricks';
import type { EmrCollectQueued } from '@setpoint/api-contract/emr';
import { ValidationError } from '@setpoint/foundation/errors';
import { countOf } from '@setpoint/foundation/words';
import { costKindLabels } from '@setpoint/insights';
import { examples } from '../help-text.js';
import { formatTime, formatUsd, printFields, printJson, printTable } from '../output.js';
import type { UploadPart } from '../remote/api-client.js';
import { remoteClient, withRemoteOptions } from '../remote/remote-command.js';

function runtimeMinutes(run: RunResource): string {
  return run.started_at && run.ended_at ? `${((run.ended_at - run.started_at) / 60_000).toFixed(1)}m` : '—';
}

/** "$0.59 of the cost, 9.8 min outside the Spark application", or "—" when none was billed outside it. */
function overheadText(run: RunResource): string {
  const overhead = run.cost?.overhead;
  if (!overhead) return '—';
  return `${formatUsd(overhead.usd)} of the cost, ${(overhead.seconds / 60).toFixed(1)}m outside the Spark application`;
}

/** The run's cost, or "pending" while its platform's bill has not arrived (never $0). */
function costText(run: RunResource): string {
  return run.cost_pending ? 'pending' : formatUsd(run.cost?.total_usd);
}

function eventLogParts(paths: string[]): UploadPart[] {
  return paths.map((filePath) => {
    let isFile = false;
    try {
      isFile = statSync(filePath).isFile();
    } catch {
      throw new ValidationError('EVENTLOG_NOT_FOUND', `no such file: ${filePath}`);
    }
    if (!isFile)
      throw new ValidationError(
        'EVENTLOG_NOT_A_FILE',
        `${filePath} is a directory: zip it or pass its files`,
      );
    return { field: 'eventlog', fileName: path.basename(filePath), filePath };
  });
}

export function registerRunsCommand(program: Command): void {
  const runs = program
    .command('runs')
    .description('list runs and submit new ones for a project')
    .addHelpText(
      'after',
      '\nExamples:\n  setpoint runs list p_123\n  setpoint runs submit p_123 ./eventlog.zst --cluster-report report.json\n  setpoint runs submit p_123 --databricks-run-id 4412 --workspace w_1\n  setpoint runs submit p_123 --emr-cluster-id j-2AXXXXXXGAPLF --step-id s-1XXXXXXXXXXXX',
    );

  withRemoteOptions(
    runs
      .command('list')
      .description('runs of a project, newest first')
      .addHelpText('after', examples('setpoint runs list prj_8f2c1a', 'setpoint runs list prj_8f2c1a --json'))
      .argument('<project>', 'project id'),
  ).action(async (project, options) => {
    const page = await remoteClient(options).request<Page<RunResource>>(
      'GET',
      `/api/v1/projects/${encodeURIComponent(project)}/runs`,
    );
    if (options.json) return printJson(page);
    printTable(
      ['RUN', 'EXTERNAL ID', 'STATE', 'STATUS', 'STARTED', 'RUNTIME', 'COST'],
      page.items.map((run) => [
        run.id,
        run.external_run_id,
        run.pipeline_state,
        run.status,
        formatTime(run.started_at),
        runtimeMinutes(run),
        costText(run),
      ]),
    );
    const pending = page.items.filter((run) => run.cost_pending);
    if (pending.length > 0)
      process.stdout.write(
        `\n${pending[0]!.cost_pending!.message} for ${pending.length} run${pending.length === 1 ? '' : 's'}: ${pending[0]!.cost_pending!.reason}\n`,
      );
  });

  withRemoteOptions(
    runs
      .command('get')
      .description('one run with its profile summary and cost')
      .addHelpText(
        'after',
        examples('setpoint runs get prj_8f2c1a run_41d0', 'setpoint runs get prj_8f2c1a run_41d0 --json'),
      )
      .argument('<project>', 'project id')
      .argument('<run>', 'run id'),
  ).action(async (project, runId, options) => {
    const run = await remoteClient(options).request<RunDetailResource>(
      'GET',
      `/api/v1/projects/${encodeURIComponent(project)}/runs/${encodeURIComponent(runId)}`,
    );
    if (options.json) return printJson(run);
    printFields([
      ['id', run.id],
      ['external id', run.external_run_id],
      ['pipeline', run.pipeline_state],
      ['status', run.status],
      ['started', formatTime(run.started_at)],
      ['runtime', runtimeMinutes(run)],
      [
        'cost',
        run.cost_pending
          ? `${run.cost_pending.message}: ${run.cost_pending.reason}`
          : formatUsd(run.cost?.total_usd),
      ],
      ...(run.cost?.components ?? []).map((component): [string, string] => [
        `  ${costKindLabels[component.kind].toLowerCase()}`,
        `${formatUsd(component.usd)}  ${component.description}, ${Number(component.quantity.toFixed(3))} ${component.unit}${component.estimated_usd === null ? '' : ` (as billed; estimated ${formatUsd(component.estimated_usd)})`}`,
      ]),
      ['overhead', overheadText(run)],
      ['error', run.error],
    ]);
  });

  withRemoteOptions(
    runs
      .command('submit')
      .description(
        'submit a finished run: event log file(s) or a zip, a Databricks run id or an EMR step to collect',
      )
      .addHelpText(
        'after',
        examples(
          'setpoint runs submit prj_8f2c1a ./eventlog.zip --cluster-report report.json',
          'setpoint runs submit prj_8f2c1a --eventlog-uri s3://logs/app-1/eventlog --external-run-id 991',
          'setpoint runs submit prj_8f2c1a --databricks-run-id 123456',
          'setpoint runs submit prj_8f2c1a --emr-cluster-id j-2AXXXXXXGAPLF --step-id s-1XXXXXXXXXXXX',
        ),
      )
      .argument('<project>', 'project id')
      .argument('[eventlog...]', 'event log files, or one zip'),
  )
    .option('--cluster-report <file>', 'cluster report JSON (cluster, events, instances)')
    .option('--external-run-id <id>', 'your id for the run; re-submitting it is a no-op')
    .option('--eventlog-uri <uri>', 'fetch the event log from an s3:// or https:// URI instead of uploading')
    .option('--databricks-run-id <id>', 'collect this run from the project’s Databricks workspace')
    .option('--emr-cluster-id <id>', 'collect a step of this EMR cluster (with --step-id)')
    .option('--step-id <id>', 'the EMR step to collect')
    .option('--workspace <id>', 'workspace or EMR account to collect from (default: the project’s)')
    .action(async (project, eventlogs, options) => {
      const client = remoteClient(options);
      const target = `/api/v1/projects/${encodeURIComponent(project)}/runs`;
      let run: RunResource;
      if (Boolean(options.emrClusterId) !== Boolean(options.stepId))
        throw new ValidationError('EMR_STEP_REQUIRED', '--emr-cluster-id and --step-id go together');
      if (options.emrClusterId && options.stepId) {
        if (options.databricksRunId || options.eventlogUri || eventlogs.length > 0)
          throw new ValidationError(
            'RUN_SOURCE_CONFLICT',
            'give one source: event log files, --eventlog-uri, --databricks-run-id or --emr-cluster-id',
          );
        const queued = await client.request<EmrCollectQueued>(
          'POST',
          `/api/v1/projects/${encodeURIComponent(project)}/emr-runs`,
          {
            cluster_id: options.emrClusterId,
            step_id: options.stepId,
            ...(options.workspace ? { account_id: options.workspace } : {}),
          },
        );
        if (options.json) return printJson(queued);
        process.stdout.write(
          `queued collection of EMR step ${queued.step_id} of cluster ${queued.cluster_id} from account ${queued.account_id}\n`,
        );
        return;
      }
      if (options.databricksRunId) {
        const queued = await client.request<CollectRunQueued>(
          'POST',
          `/api/v1/projects/${encodeURIComponent(project)}/databricks-runs`,
          {
            run_id: options.databricksRunId,
            ...(options.workspace ? { workspace_id: options.workspace } : {}),
          },
        );
        if (options.json) return printJson(queued);
        process.stdout.write(
          `queued collection of Databricks run ${queued.run_id} from workspace ${queued.workspace_id}\n`,
        );
        return;
      } else if (options.eventlogUri) {
        run = await client.request<RunResource>('POST', target, {
          eventlog_uri: options.eventlogUri,
          external_run_id: options.externalRunId,
        });
      } else {
        if (eventlogs.length === 0)
          throw new ValidationError(
            'NO_EVENTLOG',
            'give event log file(s), --eventlog-uri, or --databricks-run-id',
          );
        const parts = eventLogParts(eventlogs);
        if (options.clusterReport)
          parts.push({
            field: 'cluster_report',
            fileName: 'cluster_report.json',
            filePath: options.clusterReport,
          });
        if (options.externalRunId) parts.push({ field: 'external_run_id', value: options.externalRunId });
        if (process.stderr.isTTY) process.stderr.write(`uploading ${countOf(parts.length, 'part')}…\n`);
        run = await client.upload<RunResource>(target, parts);
      }
      if (options.json) printJson(run);
      else process.stdout.write(`submitted run ${run.id} (${run.pipeline_state})\n`);
    });
}
