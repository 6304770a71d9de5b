/**
 * Writes a configuration sweep measured on Setpoint's emulator physics (task-level simulation with CPU
 * speed, memory bandwidth, local NVMe or EBS disks, spill, OOM and run-to-run noise) in the canonical
 * sweep CSV. It is a second held-out check for the optimizer whose physics share nothing with the
 * analytic synthetic sweep, with instance names the optimizer has no table for: EBS layouts are encoded
 * in the name (`m5.xlarge+ebs-hdd-1x500`), as some public sweeps do.
 *
 *   npx tsx scripts/datasets/generate-emulator-sweep.ts tests/fixtures/datasets/emulator-sweep.csv
 */
import { writeFileSync } from 'node:fs';
import { sweepColumns } from '@setpoint/bench/sweep/schema';
import type { NewClusterLike } from '@setpoint/databricks-emulator/physics/cluster-spec';
import { findNodeType } from '@setpoint/databricks-emulator/physics/node-types';
import { simulateRun } from '@setpoint/databricks-emulator/physics/simulate-run';
import type { Workload } from '@setpoint/databricks-emulator/workloads/schema';
import { shippedWorkloads } from '@setpoint/databricks-emulator/workloads/shipped-workloads';

const families = ['m5', 'c5', 'r5', 'm5d', 'c5d', 'r5d', 'i3', 'm6gd', 'r6gd'];
const sizes = ['xlarge', '2xlarge', '4xlarge'];
const workerCounts = [2, 3, 4, 6, 8, 12, 16];
const repeats = 3;
const seed = 20_261_124;
/** Databricks jobs compute list price, $/DBU, added to the VM price as a job cluster pays both. */
const usdPerDbu = 0.15;

/** EBS layouts tried on the families without local disks: name suffix → volumes. */
const ebsLayouts = [
  { suffix: '', type: 'GENERAL_PURPOSE_SSD', count: 1, sizeGb: 100, usdPerGbMonth: 0.1 },
  { suffix: '+ebs-hdd-1x500', type: 'THROUGHPUT_OPTIMIZED_HDD', count: 1, sizeGb: 500, usdPerGbMonth: 0.045 },
  { suffix: '+ebs-ssd-4x250', type: 'GENERAL_PURPOSE_SSD', count: 4, sizeGb: 250, usdPerGbMonth: 0.1 },
] as const;

/** Two data scales per shipped workload: tasks of scans and every stage's bytes follow the data. */
function scaled(workload: Workload, scale: number, label: string): Workload {
  return {
    ...workload,
    name: `${workload.name}-${label}`,
    growthPerWeek: 0,
    codeChange: undefined,
    jobs: workload.jobs.map((job) => ({
      ...job,
      stages: job.stages.map((stage) => ({
        ...stage,
        tasks: stage.tasksScaleWithData ? Math.max(1, Math.round(stage.tasks * scale)) : stage.tasks,
        cpuSecondsPerTask: stage.tasksScaleWithData
          ? stage.cpuSecondsPerTask
          : stage.cpuSecondsPerTask * scale,
        memoryPerTaskBytes: stage.tasksScaleWithData
          ? stage.memoryPerTaskBytes
          : stage.memoryPerTaskBytes * Math.sqrt(scale),
        inputBytes: stage.inputBytes * scale,
        outputBytes: stage.outputBytes * scale,
        shuffleReadBytes: stage.shuffleReadBytes * scale,
        shuffleWriteBytes: stage.shuffleWriteBytes * scale,
      })),
    })),
  };
}

const output = process.argv[2];
if (!output) {
  process.stderr.write('usage: generate-emulator-sweep.ts <out.csv>\n');
  process.exit(2);
}
const workloads = shippedWorkloads.flatMap((workload) => [
  scaled(workload, 0.5, 'small'),
  scaled(workload, 2, 'large'),
]);
const lines = [sweepColumns.join(',')];
for (const [w, workload] of workloads.entries()) {
  let configuration = 0;
  for (const family of families) {
    for (const size of sizes) {
      const nodeTypeId = `${family}.${size}`;
      const node = findNodeType(nodeTypeId);
      if (!node) throw new Error(`the emulator has no node type ${nodeTypeId}`);
      const layouts = node.localDisk === 'none' ? ebsLayouts : ebsLayouts.slice(0, 1);
      for (const layout of layouts) {
        const ebsUsdPerHour =
          node.localDisk === 'none' ? (layout.count * layout.sizeGb * layout.usdPerGbMonth) / 730 : 0;
        const price =
          node.cores * (node.onDemandUsdPerCoreHour + node.dbuPerCoreHour * usdPerDbu) + ebsUsdPerHour;
        for (const workers of workerCounts) {
          configuration += 1;
          const cluster: NewClusterLike = {
            node_type_id: nodeTypeId,
            num_workers: workers,
            aws_attributes: {
              availability: 'ON_DEMAND',
              ...(node.localDisk === 'none'
                ? {
                    ebs_volume_type: layout.type,
                    ebs_volume_count: layout.count,
                    ebs_volume_size: layout.sizeGb,
                  }
                : {}),
            },
          };
          for (let r = 0; r < repeats; r++) {
            const runSeed = seed + w * 1_000_003 + configuration * 101 + r;
            const run = simulateRun(workload, cluster, runSeed, r, { noise: 0.05 });
            lines.push(
              [
                workload.name,
                `${nodeTypeId}${node.localDisk === 'none' ? layout.suffix : ''}`,
                workers,
                node.cores,
                Math.round((node.memoryMb / 1024) * 100) / 100,
                Math.round(price * 10_000) / 10_000,
                Math.round(run.runtimeMs) / 1000,
                run.outcome === 'SUCCESS',
              ].join(','),
            );
          }
        }
      }
    }
  }
  process.stdout.write(`${workload.name} done\n`);
}
writeFileSync(output, `${lines.join('\n')}\n`);
process.stdout.write(`wrote ${lines.length - 1} runs to ${output}\n`);
