/**
 * Builds the fleet prior Setpoint ships (packages/setpoint/src/optimizer/shipped-fleet/shipped-fleet-data.json) from the
 * public and generated sweeps in packages/setpoint/data/shipped-fleet (provenance and licences: that folder's
 * SOURCES.md), then its calibration (shipped-calibration.ts, by scripts/datasets/build-shipped-calibration.ts):
 *
 *   npx tsx scripts/datasets/build-shipped-fleet.ts && npx tsx scripts/datasets/build-shipped-calibration.ts
 *
 * Each workload of each sweep becomes one fleet job: per configuration its runs, failures and the mean
 * and spread of ln(runtime) of the completed runs.
 */
import { writeFileSync } from 'node:fs';
import { readSweepCsv } from '@setpoint/bench/sweep/read-sweep-csv';
import { groupSweepRows } from '@setpoint/bench/sweep/sweep-dataset';
import { mean } from '@setpoint/foundation/statistics';
import { configurationName } from 'setpoint/optimizer/configuration-name';
import type { ShippedSource } from 'setpoint/optimizer/shipped-fleet/shipped-fleet-format';

const sourceFolder = 'packages/setpoint/data/shipped-fleet';
const sources = [
  { name: 'scout', file: `${sourceFolder}/scout-sweep.csv` },
  { name: 'synthetic', file: `${sourceFolder}/synthetic-sweep.csv` },
  { name: 'emulator', file: `${sourceFolder}/emulator-sweep.csv` },
];
export const shippedFleetDataFile = 'packages/setpoint/src/optimizer/shipped-fleet/shipped-fleet-data.json';
const round = (value: number) => Math.round(value * 10_000) / 10_000;

/** The shipped sources as the sweeps in packages/setpoint/data/shipped-fleet give them today. */
export async function buildShippedSources(): Promise<ShippedSource[]> {
  const shipped: ShippedSource[] = [];
  for (const source of sources) {
    const workloads = groupSweepRows(await readSweepCsv(source.file));
    const types = new Map<string, [string, number, number, number]>();
    for (const workload of workloads) {
      for (const config of workload.configs) {
        const c = config.candidate;
        types.set(configurationName(c), [
          configurationName(c),
          c.vcpusPerNode,
          c.memoryGibPerNode,
          c.priceUsdPerNodeHour,
        ]);
      }
    }
    const typeIndex = new Map([...types.keys()].map((name, i) => [name, i]));
    shipped.push({
      name: source.name,
      instanceTypes: [...types.values()],
      jobs: workloads.map((workload) => ({
        workload: workload.name,
        configurations: workload.configs.map((config) => {
          const logs = config.runs.filter((run) => run.completed).map((run) => Math.log(run.runtimeS));
          const meanLog = mean(logs) ?? 0;
          const scatter = logs.reduce((sum, value) => sum + (value - meanLog) ** 2, 0);
          return [
            typeIndex.get(configurationName(config.candidate)) as number,
            config.candidate.nodes,
            config.runs.length,
            config.runs.length - logs.length,
            round(meanLog),
            round(scatter),
          ];
        }),
      })),
    });
  }
  return shipped;
}

/**
 * The generated file's text: JSON (the formatter skips it) with one line per job, so a change to one sweep
 * shows in a diff as the jobs it changed.
 */
export function shippedFleetJson(shipped: readonly ShippedSource[]): string {
  const sourceText = (source: ShippedSource) =>
    [
      '    {',
      `      "name": ${JSON.stringify(source.name)},`,
      `      "instanceTypes": ${JSON.stringify(source.instanceTypes)},`,
      '      "jobs": [',
      source.jobs.map((job) => `        ${JSON.stringify(job)}`).join(',\n'),
      '      ]',
      '    }',
    ].join('\n');
  return `{
  "generatedBy": "scripts/datasets/build-shipped-fleet.ts from ${sourceFolder}; do not edit",
  "sources": [
${shipped.map(sourceText).join(',\n')}
  ]
}
`;
}

if (process.argv[1]?.endsWith('build-shipped-fleet.ts')) {
  const shipped = await buildShippedSources();
  const text = shippedFleetJson(shipped);
  writeFileSync(shippedFleetDataFile, text);
  process.stdout.write(
    `wrote ${shipped.reduce((sum, source) => sum + source.jobs.length, 0)} jobs from ${shipped.length} sources to ${shippedFleetDataFile} (${text.length} bytes)\n`,
  );
}
