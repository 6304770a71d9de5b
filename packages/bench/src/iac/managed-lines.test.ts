import { describe, expect, it } from 'vitest';
import { bytesOutsideManaged } from './managed-lines.js';

describe('bytesOutsideManaged', () => {
  it('counts nothing for changes of managed attributes and their blocks', () => {
    const diff = [
      '--- a/jobs/job.tf',
      '+++ b/jobs/job.tf',
      '@@ -3,4 +3,6 @@',
      '-      num_workers   = 8',
      '+      node_type_id  = "m5d.xlarge"',
      '+      autoscale {',
      '+        min_workers = 2',
      '+      }',
      '-        availability: ON_DEMAND',
      '+        availability: SPOT_WITH_FALLBACK',
    ].join('\n');
    expect(bytesOutsideManaged(diff, 'databricks')).toEqual({ lines: 7, outside: 0 });
  });

  it('counts every byte of a line that changes anything else', () => {
    const diff = [
      '-      spark_version = "15.4.x-scala2.12"',
      '+      spark_version = "16.4.x-scala2.12"',
      '+  # a comment',
    ].join('\n');
    const counted = bytesOutsideManaged(diff, 'databricks');
    expect(counted.lines).toBe(3);
    expect(counted.outside).toBe(
      Buffer.byteLength(
        '      spark_version = "15.4.x-scala2.12"\n      spark_version = "16.4.x-scala2.12"\n  # a comment\n',
      ),
    );
  });

  it('takes an EMR task group Setpoint adds as one managed change, and nothing after it', () => {
    const diff = [
      '+resource "aws_emr_instance_group" "orders_task" {',
      '+  cluster_id     = aws_emr_cluster.orders.id',
      '+  name           = "Task"',
      '+}',
      '-  release_label = "emr-7.1.0"',
    ].join('\n');
    expect(bytesOutsideManaged(diff, 'emr').outside).toBe(
      Buffer.byteLength('  release_label = "emr-7.1.0"\n'),
    );
  });
});
