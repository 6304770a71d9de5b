import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parse as parseHcl } from '@cdktf/hcl2json';
import {
  type HclBlock,
  type HclValue,
  terraformResourceName,
  writeHclBlock,
} from 'setpoint/export/hcl-writer';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';

/**
 * A team's code for Databricks jobs, as teams write it, for tests and the no-drift bench: a job's settings
 * (as the Jobs API returns them) written as a Terraform `databricks_job` and as a bundle resource, and
 * read back the way `terraform apply` and `bundle deploy` would send them to the workspace.
 */

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Fields the Jobs API adds on read: a deploy would not send them, so the code does not hold them. */
const readDefaults = new Set([
  'format',
  'timeout_seconds',
  'email_notifications',
  'run_if',
  'enable_elastic_disk',
  'data_security_mode',
]);
/** Map-valued fields: attributes in Terraform (`tags = { … }`), not blocks. */
const mapFields = new Set(['tags', 'spark_conf', 'custom_tags', 'spark_env_vars', 'base_parameters']);
/** Blocks that repeat (the API's arrays of objects). */
const listBlocks = new Set(['task', 'job_cluster', 'depends_on', 'on_start', 'on_success', 'on_failure']);
/** Terraform's singular block names for the API's plural arrays. */
const blockNames: Record<string, string> = { tasks: 'task', job_clusters: 'job_cluster' };
const apiNames: Record<string, string> = { task: 'tasks', job_cluster: 'job_clusters' };

/** The settings a deploy sends: what the team wrote, without what the service fills in on read. */
export function deployedSettings(settings: Record<string, unknown>): Record<string, Json> {
  const strip = (value: unknown): Json => {
    if (Array.isArray(value)) return value.map(strip);
    if (value === null || typeof value !== 'object') return value as Json;
    return Object.fromEntries(
      Object.entries(value)
        .filter(
          ([key, nested]) =>
            !readDefaults.has(key) &&
            !(typeof nested === 'object' && nested !== null && Object.keys(nested).length === 0),
        )
        .map(([key, nested]) => [key, strip(nested)]),
    );
  };
  return strip(settings) as Record<string, Json>;
}

function hclBlock(type: string, value: Record<string, Json>, labels?: string[]): HclBlock {
  const attributes: [string, HclValue][] = [];
  const blocks: HclBlock[] = [];
  for (const [key, nested] of Object.entries(value)) {
    if (nested === null) continue;
    if (mapFields.has(key) && typeof nested === 'object' && !Array.isArray(nested)) {
      const entries = Object.entries(nested).map(
        ([name, item]) => `${JSON.stringify(name)} = ${JSON.stringify(item)}`,
      );
      attributes.push([key, { raw: `{ ${entries.join(', ')} }` }]);
    } else if (
      Array.isArray(nested) &&
      nested.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item))
    ) {
      for (const item of nested)
        blocks.push(hclBlock(blockNames[key] ?? key.replace(/s$/, ''), item as Record<string, Json>));
    } else if (typeof nested === 'object' && !Array.isArray(nested)) blocks.push(hclBlock(key, nested));
    else attributes.push([key, nested as HclValue]);
  }
  return { type, ...(labels ? { labels } : {}), attributes, blocks };
}

/** A job as a `databricks_job` resource (its variables where `variables` names a cluster field to lift). */
export function terraformOfJob(
  settings: Record<string, unknown>,
  options: { comment?: string; variables?: Record<string, { path: string[]; name: string }> } = {},
): { resourceName: string; text: string; variables: string } {
  const deployed = deployedSettings(settings);
  const variables: string[] = [];
  for (const { path: fieldPath, name } of Object.values(options.variables ?? {})) {
    let holder: Record<string, Json> | undefined = deployed;
    for (const step of fieldPath.slice(0, -1)) holder = holder?.[step] as Record<string, Json> | undefined;
    const last = fieldPath.at(-1) as string;
    const value = holder?.[last];
    if (!holder || value === undefined) continue;
    holder[last] = `\u0000var.${name}`;
    variables.push(
      `variable "${name}" {\n  type    = ${typeof value === 'number' ? 'number' : 'string'}\n  default = ${JSON.stringify(value)}\n}\n`,
    );
  }
  const resourceName = terraformResourceName(String(deployed.name ?? 'job'));
  const block = hclBlock('resource', deployed, ['databricks_job', resourceName]);
  const text = writeHclBlock({ ...block, comments: options.comment ? [options.comment] : [] }).replace(
    /"\\u0000(var\.[A-Za-z0-9_]+)"/g,
    '$1',
  );
  return { resourceName, text: `${text}\n`, variables: variables.join('\n') };
}

function fromHcl(value: unknown, key = ''): Json {
  if (Array.isArray(value)) {
    const items = value.map((item) => fromHcl(item));
    return listBlocks.has(key) || !value.every((item) => typeof item === 'object' && item !== null)
      ? items
      : (items[0] ?? null);
  }
  if (value === null || typeof value !== 'object') return value as Json;
  return Object.fromEntries(
    Object.entries(value).map(([name, nested]) => [apiNames[name] ?? name, fromHcl(nested, name)]),
  );
}

function resolveVariables(value: Json, resolve: (name: string) => Json): Json {
  if (typeof value === 'string') {
    const whole = /^\$\{var\.([A-Za-z0-9_-]+)\}$/.exec(value);
    return whole ? resolve(whole[1] as string) : value;
  }
  if (Array.isArray(value)) return value.map((item) => resolveVariables(item, resolve));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, nested]) => [key, resolveVariables(nested, resolve)]),
    );
  return value;
}

/**
 * What `terraform apply` sends for a `databricks_job`, read with @cdktf/hcl2json: its arguments as Jobs
 * API settings, variables taken from the `.tfvars` files, then their defaults.
 */
export async function settingsOfTerraform(
  files: Record<string, string>,
  resourceName: string,
  tfvars: string[] = [],
): Promise<Record<string, Json>> {
  const defaults: Record<string, Json> = {};
  let resource: unknown;
  for (const [name, text] of Object.entries(files)) {
    if (!name.endsWith('.tf')) continue;
    const parsed = (await parseHcl(name, text)) as {
      variable?: Record<string, { default?: Json }[]>;
      resource?: { databricks_job?: Record<string, unknown[]> };
    };
    for (const [variable, [declaration]] of Object.entries(parsed.variable ?? {}))
      if (declaration?.default !== undefined) defaults[variable] = declaration.default;
    resource ??= parsed.resource?.databricks_job?.[resourceName]?.[0];
  }
  for (const name of tfvars) Object.assign(defaults, await parseHcl(name, files[name] ?? ''));
  if (!resource) throw new Error(`no databricks_job.${resourceName}`);
  return resolveVariables(fromHcl(resource), (name) => {
    if (!(name in defaults)) throw new Error(`var.${name} has no value`);
    return defaults[name] as Json;
  }) as Record<string, Json>;
}

/** A job as a bundle resource file, optionally with a cluster field as a variable of `databricks.yml`. */
export function bundleOfJob(
  key: string,
  settings: Record<string, unknown>,
  options: { variable?: { path: string[]; name: string } } = {},
): { resource: string; variables: Record<string, Json> } {
  const deployed = deployedSettings(settings);
  const variables: Record<string, Json> = {};
  if (options.variable) {
    let holder: Record<string, Json> | undefined = deployed;
    for (const step of options.variable.path.slice(0, -1)) {
      const next: Json | undefined = holder?.[step];
      holder = (Array.isArray(next) ? next[0] : next) as Record<string, Json> | undefined;
    }
    const last = options.variable.path.at(-1) as string;
    if (holder && holder[last] !== undefined) {
      variables[options.variable.name] = {
        description: `${last} of ${deployed.name}`,
        default: holder[last] as Json,
      };
      holder[last] = `\${var.${options.variable.name}}`;
    }
  }
  const resource = stringifyYaml({ resources: { jobs: { [key]: deployed } } }, { lineWidth: 0 });
  return {
    resource: `# ${String(deployed.name)}, deployed with \`databricks bundle deploy\`\n${resource}`,
    variables,
  };
}

export function bundleRoot(name: string, variables: Record<string, Json>, target: string): string {
  return stringifyYaml(
    {
      bundle: { name },
      include: ['resources/*.yml'],
      ...(Object.keys(variables).length > 0 ? { variables } : {}),
      targets: { [target]: { mode: 'production', default: true } },
    },
    { lineWidth: 0 },
  );
}

/**
 * What `bundle deploy -t <target>` sends for a job: the resource with the target's overrides merged
 * (job clusters and tasks by key) and `${var.…}` resolved from the target, then the defaults; and the
 * deployment marker the workspace then shows.
 */
export function settingsOfBundle(
  files: Record<string, string>,
  key: string,
  target: string,
): Record<string, Json> {
  const documents = Object.entries(files)
    .filter(([name]) => name.endsWith('.yml'))
    .map(([, text]) => parseYaml(text) as Record<string, Record<string, Record<string, unknown>>>);
  const root = documents.find((document) => document.bundle) as Record<
    string,
    Record<string, Record<string, Json>>
  >;
  const job = documents.map((document) => document.resources?.jobs?.[key]).find(Boolean) as Record<
    string,
    Json
  >;
  if (!root || !job) throw new Error(`no bundle or no job ${key}`);
  const override = (
    root.targets?.[target] as Record<string, Record<string, Record<string, Json>>> | undefined
  )?.resources?.jobs?.[key];
  const merged = structuredClone(job) as Record<string, Json>;
  for (const [field, byKey] of [
    ['job_clusters', 'job_cluster_key'],
    ['tasks', 'task_key'],
  ] as const) {
    for (const entry of ((override as Record<string, Json> | undefined)?.[field] as
      | Record<string, Json>[]
      | undefined) ?? []) {
      const list = (merged[field] as Record<string, Json>[]) ?? [];
      const existing = list.find((item) => item[byKey] === entry[byKey]);
      if (existing) deepMerge(existing, entry);
      else list.push(entry);
    }
  }
  const targetVariables =
    (root.targets?.[target] as Record<string, Record<string, Json>> | undefined)?.variables ?? {};
  const resolved = resolveVariables(merged, (name) => {
    const value =
      targetVariables[name] ?? (root.variables?.[name] as Record<string, Json> | undefined)?.default;
    if (value === undefined) throw new Error(`\${var.${name}} has no value`);
    return value;
  }) as Record<string, Json>;
  return {
    ...resolved,
    deployment: {
      kind: 'BUNDLE',
      metadata_file_path: `/Workspace/.bundle/${String(root.bundle?.name)}/${target}/state/metadata.json`,
    },
    edit_mode: 'UI_LOCKED',
  };
}

function deepMerge(into: Record<string, Json>, from: Record<string, Json>): void {
  for (const [key, value] of Object.entries(from)) {
    const current = into[key];
    if (
      value &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      current &&
      typeof current === 'object' &&
      !Array.isArray(current)
    )
      deepMerge(current as Record<string, Json>, value as Record<string, Json>);
    else into[key] = value;
  }
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=Team', '-c', 'user.email=team@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

/** A bare repository (the remote, `<root>/<name>`) whose `main` holds these files, and a work clone of it. */
export function createRepository(
  root: string,
  name: string,
  files: Record<string, string>,
): { remote: string; work: string } {
  const directory = root;
  const remote = path.join(root, name);
  mkdirSync(path.dirname(remote), { recursive: true });
  git(directory, 'init', '--quiet', '--bare', '--initial-branch=main', remote);
  const work = mkdtempSync(path.join(directory, 'work-'));
  // a clone of the empty remote would warn on stderr; the work tree is made and pointed at it instead
  git(work, 'init', '--quiet', '--initial-branch=main');
  git(work, 'remote', 'add', 'origin', remote);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(work, name)), { recursive: true });
    writeFileSync(path.join(work, name), text);
  }
  git(work, 'add', '--all');
  git(work, 'commit', '--quiet', '-m', 'jobs as the team wrote them');
  git(work, 'push', '--quiet', 'origin', 'main');
  return { remote, work };
}

/** A reviewer merges the proposal branch into main (a merge commit), as the forge's merge button does. */
export function mergeBranch(work: string, branch: string): string {
  git(work, 'fetch', '--quiet', 'origin');
  git(work, 'checkout', '--quiet', 'main');
  git(work, 'reset', '--quiet', '--hard', 'origin/main');
  git(work, 'merge', '--quiet', '--no-ff', '-m', `Merge ${branch}`, `origin/${branch}`);
  git(work, 'push', '--quiet', 'origin', 'main');
  return git(work, 'rev-parse', 'HEAD');
}

/** The files of the remote's main as a deploy reads them. */
export function filesAt(work: string, names: string[]): Record<string, string> {
  git(work, 'fetch', '--quiet', 'origin');
  return Object.fromEntries(
    names.map((name) => [
      name,
      execFileSync('git', ['show', `origin/main:${name}`], { cwd: work, encoding: 'utf8' }),
    ]),
  );
}

/** An EMR instance group as RunJobFlow takes it (what `terraform apply` of the cluster launches). */
export interface EmrGroup {
  InstanceRole: 'MASTER' | 'CORE' | 'TASK';
  InstanceType: string;
  InstanceCount: number;
  Market?: 'ON_DEMAND' | 'SPOT';
  BidPrice?: string;
  EbsConfiguration?: {
    EbsBlockDeviceConfigs: {
      VolumeSpecification: { SizeInGB: number; VolumeType: string };
      VolumesPerInstance: number;
    }[];
  };
}

/**
 * A transient EMR cluster as a team writes it in Terraform: `aws_emr_cluster` with its primary and core
 * groups, and the task group as an `aws_emr_instance_group` (none when it has no task nodes).
 */
export function terraformOfEmrCluster(
  name: string,
  groups: EmrGroup[],
  options: { comment?: string; tags?: Record<string, string> } = {},
): { resourceName: string; text: string } {
  const resourceName = terraformResourceName(name);
  const of = (role: EmrGroup['InstanceRole']) => groups.find((group) => group.InstanceRole === role);
  const primary = of('MASTER');
  const core = of('CORE');
  const task = of('TASK');
  if (!primary || !core) throw new Error(`${name} needs a primary and a core group`);
  const tags = Object.entries(options.tags ?? {})
    .map(([key, value]) => `${JSON.stringify(key)} = ${JSON.stringify(value)}`)
    .join(', ');
  const lines = [
    ...(options.comment ? [`# ${options.comment}`] : []),
    `resource "aws_emr_cluster" "${resourceName}" {`,
    `  name          = ${JSON.stringify(name)}`,
    '  release_label = "emr-7.2.0"',
    '  applications  = ["Spark"]',
    '  service_role  = "EMR_DefaultRole"',
    '',
    '  master_instance_group {',
    `    instance_type = ${JSON.stringify(primary.InstanceType)}`,
    '  }',
    '',
    '  # sized by hand once; Setpoint proposes changes here',
    '  core_instance_group {',
    `    instance_type  = ${JSON.stringify(core.InstanceType)}`,
    `    instance_count = ${core.InstanceCount}`,
    '  }',
    ...(tags ? ['', `  tags = { ${tags} }`] : []),
    '}',
    ...(task && task.InstanceCount > 0
      ? [
          '',
          `resource "aws_emr_instance_group" "${resourceName}_task" {`,
          `  cluster_id     = aws_emr_cluster.${resourceName}.id`,
          '  name           = "Task"',
          `  instance_type  = ${JSON.stringify(task.InstanceType)}`,
          `  instance_count = ${task.InstanceCount}`,
          '}',
        ]
      : []),
  ];
  return { resourceName, text: `${lines.join('\n')}\n` };
}

type HclEbs = { size: number; type: string; volumes_per_instance?: number }[];
type HclGroup = { instance_type: string; instance_count?: number; bid_price?: string; ebs_config?: HclEbs };

const ebsOf = (ebs: HclEbs | undefined): Pick<EmrGroup, 'EbsConfiguration'> =>
  ebs && ebs.length > 0
    ? {
        EbsConfiguration: {
          EbsBlockDeviceConfigs: ebs.map((volume) => ({
            VolumeSpecification: { SizeInGB: volume.size, VolumeType: volume.type },
            VolumesPerInstance: volume.volumes_per_instance ?? 1,
          })),
        },
      }
    : {};

/** What `terraform apply` launches for an `aws_emr_cluster` and its instance groups, read with @cdktf/hcl2json. */
export async function emrClusterOfTerraform(
  files: Record<string, string>,
  resourceName: string,
): Promise<{ name: string; groups: EmrGroup[] }> {
  let cluster:
    | { name: string; master_instance_group: HclGroup[]; core_instance_group: HclGroup[] }
    | undefined;
  const taskGroups: HclGroup[] = [];
  for (const [name, text] of Object.entries(files)) {
    if (!name.endsWith('.tf')) continue;
    const parsed = (await parseHcl(name, text)) as {
      resource?: {
        aws_emr_cluster?: Record<string, [NonNullable<typeof cluster>]>;
        aws_emr_instance_group?: Record<string, [HclGroup & { cluster_id: string }]>;
      };
    };
    cluster ??= parsed.resource?.aws_emr_cluster?.[resourceName]?.[0];
    for (const [group] of Object.values(parsed.resource?.aws_emr_instance_group ?? {}))
      if (group.cluster_id.includes(`aws_emr_cluster.${resourceName}.id`)) taskGroups.push(group);
  }
  if (!cluster) throw new Error(`no aws_emr_cluster.${resourceName}`);
  const primary = cluster.master_instance_group[0];
  const core = cluster.core_instance_group[0];
  if (!primary || !core) throw new Error(`aws_emr_cluster.${resourceName} needs its primary and core groups`);
  return {
    name: cluster.name,
    groups: [
      { InstanceRole: 'MASTER', InstanceType: primary.instance_type, InstanceCount: 1 },
      {
        InstanceRole: 'CORE',
        InstanceType: core.instance_type,
        InstanceCount: core.instance_count ?? 1,
        ...ebsOf(core.ebs_config),
      },
      ...taskGroups
        .filter((group) => (group.instance_count ?? 0) > 0)
        .map(
          (group): EmrGroup => ({
            InstanceRole: 'TASK',
            InstanceType: group.instance_type,
            InstanceCount: group.instance_count ?? 0,
            Market: group.bid_price ? 'SPOT' : 'ON_DEMAND',
            ...(group.bid_price ? { BidPrice: group.bid_price } : {}),
            ...ebsOf(group.ebs_config),
          }),
        ),
    ],
  };
}
