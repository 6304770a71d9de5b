import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type JobSettings, jobSettingsSchema } from '../api/schema.js';
import { clusterTraits } from '../cluster-shape/cluster-shape.js';
import { buildClusterUpdate } from './apply-cluster-change.js';
import { classifyJobCompute } from './job-clusters.js';
import { diffManagedFields, managedFieldPaths } from './managed-fields.js';
import { planOnboarding } from './onboarding.js';

function loadJob(): JobSettings {
  const raw = readFileSync(
    new URL('../../../../../../tests/fixtures/databricks/multi-cluster-job.json', import.meta.url),
    'utf8',
  );
  return jobSettingsSchema.parse(JSON.parse(raw));
}

describe('classifyJobCompute', () => {
  it('finds two shared job clusters and a task cluster, and explains what it cannot manage', () => {
    const classes = classifyJobCompute(loadJob());

    const manageable = classes.filter((entry) => entry.kind === 'manageable');
    expect(manageable.map((entry) => entry.ref)).toEqual([
      { kind: 'job_cluster', jobClusterKey: 'etl' },
      { kind: 'job_cluster', jobClusterKey: 'report' },
      { kind: 'task_cluster', taskKey: 'single' },
    ]);
    expect(manageable[0]?.kind === 'manageable' && manageable[0].taskKeys).toEqual(['ingest', 'transform']);
    expect(classes.find((entry) => entry.kind === 'all_purpose')).toMatchObject({
      taskKey: 'adhoc',
      existingClusterId: '0101-000000-shared1',
    });
    expect(classes.find((entry) => entry.kind === 'serverless')).toMatchObject({ taskKey: 'sql' });
  });

  it('reads Photon from a legacy -photon- runtime and autoscaling bounds', () => {
    const report = loadJob().job_clusters?.[1]?.new_cluster;

    expect(report && clusterTraits(report, 'aws')).toEqual({
      photon: true,
      autoscale: true,
      // no aws_attributes: Databricks runs it on its default, SPOT_WITH_FALLBACK
      spot: true,
      workers: { min: 2, max: 10 },
    });
  });
});

describe('buildClusterUpdate', () => {
  it('sends the whole job cluster entry with only managed fields changed', () => {
    const settings = loadJob();

    const update = buildClusterUpdate(
      settings,
      { kind: 'job_cluster', jobClusterKey: 'etl' },
      {
        node_type_id: 'r6i.xlarge',
        driver_node_type_id: 'm6i.large',
        num_workers: 5,
        aws_attributes: { availability: 'SPOT_WITH_FALLBACK', first_on_demand: 1 },
      },
      { maintainScalingType: true },
    );

    expect(Object.keys(update.newSettings)).toEqual(['job_clusters']);
    const sent = update.newSettings.job_clusters?.[0]?.new_cluster;
    expect(sent).toMatchObject({
      node_type_id: 'r6i.xlarge',
      driver_node_type_id: 'm6i.large',
      num_workers: 5,
      policy_id: 'POL-123',
      spark_conf: { 'spark.sql.shuffle.partitions': '400' },
      init_scripts: [{ workspace: { destination: '/Shared/init.sh' } }],
      custom_tags: { 'cost-center': '42' },
      aws_attributes: {
        availability: 'SPOT_WITH_FALLBACK',
        first_on_demand: 1,
        zone_id: 'us-east-1a',
        instance_profile_arn: 'arn:aws:iam::1:instance-profile/etl',
      },
    });
    expect(diffManagedFields(update.previous, update.next).map((difference) => difference.field)).toEqual([
      'node_type_id',
      'driver_node_type_id',
      'num_workers',
      'aws_attributes.availability',
    ]);
  });

  it('sends a task cluster change as the whole task', () => {
    const update = buildClusterUpdate(
      loadJob(),
      { kind: 'task_cluster', taskKey: 'single' },
      { num_workers: 4 },
      { maintainScalingType: true },
    );

    expect(update.newSettings.tasks).toEqual([
      {
        task_key: 'single',
        new_cluster: { spark_version: '14.3.x-scala2.12', node_type_id: 'c5.2xlarge', num_workers: 4 },
        spark_python_task: { python_file: 'dbfs:/x.py' },
      },
    ]);
  });

  it('refuses to turn an autoscaling cluster into a fixed one when the scaling type is kept', () => {
    expect(() =>
      buildClusterUpdate(
        loadJob(),
        { kind: 'job_cluster', jobClusterKey: 'report' },
        { num_workers: 6 },
        { maintainScalingType: true },
      ),
    ).toThrow(/keeps its scaling type/);
  });

  it('switches scaling type when allowed, dropping the other sizing field', () => {
    const update = buildClusterUpdate(
      loadJob(),
      { kind: 'job_cluster', jobClusterKey: 'report' },
      { num_workers: 6 },
      { maintainScalingType: false },
    );

    expect(update.next.num_workers).toBe(6);
    expect(update.next).not.toHaveProperty('autoscale');
  });

  it('removes EBS volumes when the recommendation sets them to null', () => {
    const settings = loadJob();
    const etl = settings.job_clusters?.[0]?.new_cluster;
    if (etl)
      etl.aws_attributes = {
        ...etl.aws_attributes,
        ebs_volume_type: 'GENERAL_PURPOSE_SSD',
        ebs_volume_count: 1,
        ebs_volume_size: 100,
      };

    const update = buildClusterUpdate(
      settings,
      { kind: 'job_cluster', jobClusterKey: 'etl' },
      {
        node_type_id: 'm5d.xlarge',
        aws_attributes: { ebs_volume_type: null, ebs_volume_count: null, ebs_volume_size: null },
      },
      { maintainScalingType: true },
    );

    expect(update.next.aws_attributes).toEqual({
      availability: 'ON_DEMAND',
      zone_id: 'us-east-1a',
      instance_profile_arn: 'arn:aws:iam::1:instance-profile/etl',
    });
  });

  it('rejects an attribute Setpoint does not manage', () => {
    expect(() =>
      buildClusterUpdate(
        loadJob(),
        { kind: 'job_cluster', jobClusterKey: 'etl' },
        { aws_attributes: { zone_id: 'us-east-1b' } as never },
        { maintainScalingType: true },
      ),
    ).toThrow(/does not manage the cluster attribute zone_id/);
  });
});

describe('diffManagedFields', () => {
  it('ignores defaults the service fills in on read', () => {
    const written = { node_type_id: 'm5.xlarge', num_workers: 2 };
    const readBack = {
      ...written,
      aws_attributes: { availability: 'SPOT_WITH_FALLBACK' as const, zone_id: 'us-east-1c' },
      enable_elastic_disk: false,
    };

    expect(diffManagedFields(written, readBack)).toEqual([]);
  });

  it('takes autoscale read back with its keys in another order as the same (a deploy from code)', () => {
    const written = { node_type_id: 'm5.xlarge', autoscale: { min_workers: 2, max_workers: 6 } };
    const deployed = { node_type_id: 'm5.xlarge', autoscale: { max_workers: 6, min_workers: 2 } };
    expect(diffManagedFields(written, deployed)).toEqual([]);
    expect(
      diffManagedFields(written, { ...deployed, autoscale: { max_workers: 7, min_workers: 2 } }).map(
        (difference) => difference.field,
      ),
    ).toEqual(['autoscale']);
  });

  it('lists every managed path exactly once', () => {
    expect(new Set(managedFieldPaths).size).toBe(managedFieldPaths.length);
    expect(managedFieldPaths).toContain('aws_attributes.ebs_volume_count');
  });
});

describe('planOnboarding', () => {
  const plan = {
    destinationId: 'setpoint-dest',
    logDestination: 'dbfs:/setpoint/logs',
    projects: [
      { ref: { kind: 'job_cluster', jobClusterKey: 'etl' } as const, projectId: 'p-etl' },
      { ref: { kind: 'job_cluster', jobClusterKey: 'report' } as const, projectId: 'p-report' },
    ],
  };

  it('adds the webhook to start, success and failure while keeping existing destinations', () => {
    const change = planOnboarding(loadJob(), plan);

    expect(change.newSettings.webhook_notifications).toEqual({
      on_start: [{ id: 'setpoint-dest' }],
      on_success: [{ id: 'setpoint-dest' }],
      on_failure: [{ id: 'pagerduty-dest' }, { id: 'setpoint-dest' }],
    });
    expect(change.newSettings.tags).toEqual({ team: 'data-eng', 'setpoint:project-id': 'p-etl,p-report' });
  });

  it('sets cluster_log_conf only where absent and tags each cluster with its project', () => {
    const change = planOnboarding(loadJob(), plan);

    const [etl, report] = change.newSettings.job_clusters ?? [];
    expect(etl?.new_cluster?.cluster_log_conf).toEqual({ dbfs: { destination: 'dbfs:/setpoint/logs' } });
    expect(report?.new_cluster?.cluster_log_conf).toEqual({ dbfs: { destination: 'dbfs:/team/logs' } });
    expect(etl?.new_cluster?.custom_tags).toEqual({ 'cost-center': '42', 'setpoint:project-id': 'p-etl' });
  });

  it('keeps a snapshot that restores every touched field exactly', () => {
    const original = loadJob();

    const change = planOnboarding(original, plan);

    expect(change.restore.newSettings.webhook_notifications).toEqual(original.webhook_notifications);
    expect(change.restore.newSettings.tags).toEqual(original.tags);
    expect(change.restore.newSettings.job_clusters).toEqual(original.job_clusters);
    expect(change.restore.fieldsToRemove).toEqual([]);
  });

  it('refuses when an event already has three destinations', () => {
    const settings = loadJob();
    settings.webhook_notifications = { on_start: [{ id: 'a' }, { id: 'b' }, { id: 'c' }] };

    expect(() => planOnboarding(settings, plan)).toThrow(/already has 3 webhook destinations for on_start/);
  });
});
