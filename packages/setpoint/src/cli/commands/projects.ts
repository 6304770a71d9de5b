import { type Command, Option, type OptionValues } from '@commander-js/extra-typings';
import type { ApplyMode, Page, ProjectResource } from '@setpoint/api-contract';
import { ValidationError } from '@setpoint/foundation/errors';
import { countOf } from '@setpoint/foundation/words';
import { slaHealthWindow, spendWindowDays } from '@setpoint/insights';
import { examples } from '../help-text.js';
import { commaList, numberArgument } from '../option-values.js';
import { formatTime, formatUsd, printFields, printJson, printTable } from '../output.js';
import { remoteClient, withRemoteOptions } from '../remote/remote-command.js';
import { registerFormFactorCommand } from './project-form-factor.js';
import { registerProjectSourceCommands } from './project-source.js';

const positiveNumber = numberArgument({ above: 0 });
const wholeNumber = numberArgument({ whole: true, min: 0 });
const applyModes = ['manual', 'approve-learning', 'auto'] as const satisfies readonly ApplyMode[];

/** Flags shared by `create` and `update`; only what was given is sent. */
function withProjectFields<Args extends unknown[], Opts extends OptionValues, Globals extends OptionValues>(
  command: Command<Args, Opts, Globals>,
) {
  return command
    .option('--name <name>', 'project name')
    .option('--description <text>', 'free-text description')
    .option('--workspace <id>', 'workspace id')
    .option('--job-id <id>', 'Databricks job id')
    .option('--cluster-key <key>', 'job cluster key (job_cluster:<key> or task:<key>)')
    .option('--app-id <id>', 'application id for runs submitted from outside a workspace')
    .option('--sla <minutes>', 'runtime SLA in minutes', positiveNumber)
    .addOption(
      new Option(
        '--apply-mode <mode>',
        "manual: only recommend; approve-learning: learning runs wait for a person's approval (recommendations approve), optimizing changes apply on their own; auto: apply every change",
      ).choices(applyModes),
    )
    .option('--auto-apply', 'apply recommendations to the job automatically (= --apply-mode auto)')
    .option('--no-auto-apply', 'only recommend; never change the job (= --apply-mode manual)')
    .option('--preference <preference>', 'economy | balanced | performance')
    .option('--min-workers <n>', 'fewest workers Setpoint may choose', wholeNumber)
    .option('--max-workers <n>', 'most workers Setpoint may choose', wholeNumber)
    .option('--families <list>', 'allowed instance families, comma-separated (e.g. m6i,r6i)', commaList)
    .option('--spot-policy <policy>', 'on-demand-only | spot-with-fallback | spot-allowed')
    .option('--photon <allowed>', 'allow Photon: true | false')
    .option(
      '--learning-miss-budget <n>',
      'SLA misses learning runs may risk (0-7; default 0: safe learning, each learning run held to P(runtime ≤ SLA) ≥ 0.9 (or a smaller cluster that a run which met the SLA bounds by its slack) and to 1.5x the best known cost, about 3% of runs after the first recommendation miss on Scout; ' +
        '1-7: the standard search, faster and finding more of the saving, but about 22% of runs miss on Scout, the worst 1% by 2.4x)',
      wholeNumber,
    );
}

interface ProjectFlags {
  name?: string;
  description?: string;
  workspace?: string;
  jobId?: string;
  clusterKey?: string;
  appId?: string;
  sla?: number;
  applyMode?: ApplyMode;
  autoApply?: boolean;
  preference?: string;
  minWorkers?: number;
  maxWorkers?: number;
  families?: string[];
  spotPolicy?: string;
  photon?: string;
  learningMissBudget?: number;
}

export function projectBody(flags: ProjectFlags): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  if (flags.sla !== undefined) settings.slaMinutes = flags.sla;
  if (flags.applyMode !== undefined && flags.autoApply !== undefined)
    throw new ValidationError(
      'APPLY_MODE_TWICE',
      'give either --apply-mode or --auto-apply/--no-auto-apply, not both (--apply-mode manual | approve-learning | auto)',
    );
  if (flags.applyMode !== undefined) settings.applyMode = flags.applyMode;
  if (flags.autoApply !== undefined) settings.autoApply = flags.autoApply;
  if (flags.preference !== undefined) settings.preference = flags.preference;
  if (flags.minWorkers !== undefined) settings.minWorkers = flags.minWorkers;
  if (flags.maxWorkers !== undefined) settings.maxWorkers = flags.maxWorkers;
  if (flags.families !== undefined) settings.allowedInstanceFamilies = flags.families;
  if (flags.spotPolicy !== undefined) settings.spotPolicy = flags.spotPolicy;
  if (flags.photon !== undefined) settings.photonAllowed = flags.photon === 'true';
  if (flags.learningMissBudget !== undefined) settings.learningMissBudget = flags.learningMissBudget;
  const body: Record<string, unknown> = {};
  if (flags.name !== undefined) body.name = flags.name;
  if (flags.description !== undefined) body.description = flags.description;
  if (flags.workspace !== undefined) body.workspace_id = flags.workspace;
  if (flags.jobId !== undefined) body.job_id = flags.jobId;
  if (flags.clusterKey !== undefined) body.cluster_key = flags.clusterKey;
  if (flags.appId !== undefined) body.app_id = flags.appId;
  if (Object.keys(settings).length > 0) body.settings = settings;
  return body;
}

/** "8/10 (80%)", with "at risk" when below the target; "—" without an SLA or a judged run. */
function slaHitText(health: NonNullable<ProjectResource['summary']>['sla_health'] | undefined): string {
  if (!health || health.runs === 0 || health.hit_rate === null) return '—';
  return `${health.met}/${health.runs} (${Math.round(health.hit_rate * 100)}%)${health.at_risk ? ' at risk' : ''}`;
}

function showProject(project: ProjectResource): void {
  const settings = project.settings;
  printFields([
    ['id', project.id],
    ['name', project.name],
    ['phase', project.phase],
    ['workspace', project.workspace_id],
    ['job', project.job_id ? `${project.job_id} (${project.cluster_key ?? 'only cluster'})` : null],
    ['app id', project.app_id],
    ['SLA', settings.slaMinutes ? `${settings.slaMinutes} min` : 'none'],
    ['apply mode', settings.applyMode],
    [
      'awaiting approval',
      project.awaiting_approval
        ? `recommendation ${project.awaiting_approval.recommendation_id} since ${formatTime(project.awaiting_approval.waiting_since)}`
        : null,
    ],
    ['preference', String(settings.preference ?? '')],
    ['workers', `${settings.minWorkers ?? '?'}–${settings.maxWorkers ?? '?'}`],
    ['spot policy', String(settings.spotPolicy ?? '')],
    // only an update answers it: the recommendation in force no longer matches the settings
    ...(project.decided_again
      ? ([
          [
            'decided again',
            `recommendation ${project.decided_again.recommendation_id} requested under the new settings`,
          ],
        ] as [string, string][])
      : []),
    ['updated', formatTime(project.updated_at)],
  ]);
}

export function registerProjectsCommand(program: Command): void {
  const projects = program
    .command('projects')
    .description('list, create and change projects (one per optimized job cluster)')
    .addHelpText(
      'after',
      '\nExamples:\n  setpoint projects list\n  setpoint projects create --name orders-etl --app-id orders --sla 45\n  setpoint projects update prj_8f2c1a --apply-mode approve-learning --preference economy',
    );
  registerProjectSourceCommands(projects);
  registerFormFactorCommand(projects);

  withRemoteOptions(
    projects
      .command('list')
      .description('list projects')
      .addHelpText(
        'after',
        examples(
          'setpoint projects list',
          'setpoint projects list --phase OPTIMIZING --search etl',
          "setpoint projects list --json | jq '.items[].id'",
        ),
      ),
  )
    .option('--search <text>', 'name contains')
    .option('--phase <phase>', 'LEARNING | OPTIMIZING | REBASING | MONITORING | PENDING_SETUP')
    .option('--limit <n>', 'how many', wholeNumber, 100)
    .action(async (options) => {
      const query = new URLSearchParams({ limit: String(options.limit) });
      if (options.search) query.set('q', options.search);
      if (options.phase) query.set('phase', options.phase);
      const page = await remoteClient(options).request<Page<ProjectResource>>(
        'GET',
        `/api/v1/projects?${query}`,
      );
      if (options.json) return printJson(page);
      printTable(
        [
          'ID',
          'NAME',
          'PHASE',
          'SLA',
          `SLA HIT (LAST ${slaHealthWindow})`,
          'COST/RUN',
          `SPEND ${spendWindowDays}D`,
          'APPLY MODE',
          'UPDATED',
        ],
        page.items.map((project) => [
          project.id,
          project.name,
          project.phase,
          project.settings.slaMinutes ? `${project.settings.slaMinutes}m` : '—',
          slaHitText(project.summary?.sla_health),
          formatUsd(project.summary?.cost_per_run_usd),
          formatUsd(project.summary?.spend.total_usd),
          project.awaiting_approval
            ? `${project.settings.applyMode} (awaiting approval)`
            : project.settings.applyMode,
          formatTime(project.updated_at),
        ]),
      );
      process.stdout.write(`${page.items.length} of ${countOf(page.total, 'project')}\n`);
    });

  withRemoteOptions(
    projects
      .command('get')
      .description('show one project')
      .addHelpText(
        'after',
        examples('setpoint projects get prj_8f2c1a', 'setpoint projects get prj_8f2c1a --json'),
      )
      .argument('<project>', 'project id'),
  ).action(async (id, options) => {
    const project = await remoteClient(options).request<ProjectResource>(
      'GET',
      `/api/v1/projects/${encodeURIComponent(id)}`,
    );
    if (options.json) printJson(project);
    else showProject(project);
  });

  withProjectFields(
    withRemoteOptions(
      projects
        .command('create')
        .description('create a project')
        .addHelpText(
          'after',
          examples(
            'setpoint projects create --name orders-etl --app-id orders --sla 45',
            'setpoint projects create --name nightly --workspace ws_1 --job-id 123 --cluster-key job_cluster:main',
          ),
        ),
    ),
  ).action(async (options) => {
    const body = projectBody(options);
    if (!body.name) body.name = options.appId ?? options.jobId;
    if (!body.name)
      throw new ValidationError(
        'PROJECT_NAME_REQUIRED',
        'projects create needs --name (or --app-id / --job-id to name the project after)',
      );
    const project = await remoteClient(options).request<ProjectResource>('POST', '/api/v1/projects', body);
    if (options.json) printJson(project);
    else showProject(project);
  });

  withProjectFields(
    withRemoteOptions(
      projects
        .command('update')
        .description('change a project’s fields or settings')
        .addHelpText(
          'after',
          examples(
            'setpoint projects update prj_8f2c1a --apply-mode approve-learning --preference economy',
            'setpoint projects update prj_8f2c1a --min-workers 2 --max-workers 20 --families m6i,r6i',
          ),
        )
        .argument('<project>', 'project id'),
    ),
  ).action(async (id, options) => {
    const project = await remoteClient(options).request<ProjectResource>(
      'PATCH',
      `/api/v1/projects/${encodeURIComponent(id)}`,
      projectBody(options),
    );
    if (options.json) printJson(project);
    else showProject(project);
  });

  withRemoteOptions(
    projects
      .command('delete')
      .description('delete a project, its runs and recommendations')
      .addHelpText('after', examples('setpoint projects delete prj_8f2c1a --yes'))
      .argument('<project>', 'project id'),
  )
    .option('--yes', 'do not ask for confirmation')
    .action(async (id, options) => {
      await remoteClient(options).request('DELETE', `/api/v1/projects/${encodeURIComponent(id)}`);
      if (options.json) printJson({ deleted: id });
      else process.stdout.write(`deleted project ${id}\n`);
    });

  withRemoteOptions(
    projects
      .command('reset')
      .description('forget what Setpoint learned and start learning again (run history is kept)')
      .addHelpText(
        'after',
        examples('setpoint projects reset prj_8f2c1a', 'setpoint projects reset prj_8f2c1a --json'),
      )
      .argument('<project>', 'project id'),
  ).action(async (id, options) => {
    const project = await remoteClient(options).request<ProjectResource>(
      'POST',
      `/api/v1/projects/${encodeURIComponent(id)}/reset`,
      {},
    );
    if (options.json) printJson(project);
    else process.stdout.write(`project ${id} reset; phase ${project.phase}\n`);
  });
}
