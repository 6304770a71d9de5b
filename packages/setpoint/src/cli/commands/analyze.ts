import type { Command } from '@commander-js/extra-typings';
import { ValidationError } from '@setpoint/foundation/errors';
import { countOf } from '@setpoint/foundation/words';
import { SingleBar } from 'cli-progress';
import Table from 'cli-table3';
import pc from 'picocolors';
import { formatBytes, formatDuration } from '../../eventlog/analysis/format-units.js';
import { coreTimeOnCpu } from '../../eventlog/analysis/run-analysis.js';
import { analyzeEventLog, type ReadProgress, type RunProfile, type Severity } from '../../eventlog/index.js';

/** Inputs smaller than this finish before a progress bar would be readable. */
const progressBarMinBytes = 32 * 1024 * 1024;
const topStageCount = 10;
const compactRows = { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' };

export function registerAnalyzeCommand(program: Command): void {
  program
    .command('analyze')
    .description(
      'profile one Spark run from its event log: summary, top stages, findings, what-if executor counts',
    )
    .argument(
      '<path>',
      'event log file, rolling eventlog_v2_* dir, Databricks eventlog dir, parent dir or .zip',
    )
    .option('--json', 'print the RunProfile as JSON')
    .option(
      '--context <id>',
      'which log to read when the path holds several (e.g. a Databricks spark_context_id)',
    )
    .option(
      '--executors <counts>',
      'extra executor counts for the what-if table, comma-separated (e.g. 4,8,16)',
    )
    .option('--allow-truncated', 'read what a truncated compressed log holds instead of failing')
    .addHelpText(
      'after',
      `
Examples:
  setpoint analyze ./app-20240101120000-0001.zstd
  setpoint analyze ./eventlog_v2_local-1623876083964 --executors 3,6
  setpoint analyze ./cluster-logs/0101-120000-abc/eventlog/0101-120000-abc_10_0_0_1 --context 4431867375329876544
  setpoint analyze ./logs.zip --json > run-profile.json

Reads plain, gzip, zstd, lz4, snappy and lzf logs (detected from their first bytes), .inprogress files,
rolling logs and Databricks cluster-log folders. Durations are milliseconds and sizes bytes in --json.`,
    )
    .action(async (path, options) => {
      const whatIfExecutors = options.executors === undefined ? [] : parseExecutorCounts(options.executors);
      const progress = progressReporter();
      let profile: RunProfile;
      try {
        profile = await analyzeEventLog(path, {
          whatIfExecutors,
          ...(options.context !== undefined ? { context: options.context } : {}),
          ...(options.allowTruncated ? { allowTruncated: true } : {}),
          onProgress: progress.update,
        });
      } finally {
        progress.stop();
      }
      process.stdout.write(options.json ? `${JSON.stringify(profile, null, 2)}\n` : renderReport(profile));
    });
}

export function parseExecutorCounts(text: string): number[] {
  const counts = text.split(',').map((part) => part.trim());
  for (const count of counts) {
    if (!/^[1-9]\d{0,5}$/.test(count)) {
      throw new ValidationError(
        'ANALYZE_BAD_EXECUTORS',
        `--executors expects positive whole numbers separated by commas (e.g. 4,8,16), got "${text}"`,
      );
    }
  }
  return counts.map(Number);
}

function progressReporter(): { update: (progress: ReadProgress) => void; stop: () => void } {
  let bar: SingleBar | undefined;
  return {
    update(progress) {
      if (!process.stderr.isTTY || progress.storedBytesTotal < progressBarMinBytes) return;
      if (!bar) {
        bar = new SingleBar({
          stream: process.stderr,
          format: 'reading event log [{bar}] {percentage}% | {value}/{total} MiB',
          hideCursor: true,
        });
        bar.start(Math.ceil(progress.storedBytesTotal / 2 ** 20), 0);
      }
      bar.update(Math.floor(progress.storedBytesRead / 2 ** 20));
    },
    stop() {
      bar?.stop();
    },
  };
}

const severityColour: Record<Severity, (text: string) => string> = {
  critical: pc.red,
  severe: pc.red,
  moderate: pc.yellow,
  low: pc.cyan,
  info: pc.dim,
};

function dateTime(epochMs: number | null): string {
  return epochMs === null
    ? 'unknown'
    : new Date(epochMs)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');
}

export function renderReport(profile: RunProfile): string {
  const { application: app, totals, analysis, platform, executors } = profile;
  const lines: string[] = [];
  const row = (label: string, value: string) => lines.push(`  ${pc.dim(label.padEnd(22))} ${value}`);
  lines.push(pc.bold(`${app.name ?? 'unnamed application'} (${app.id ?? 'no application id'})`));
  row('Spark version', app.sparkVersion ?? 'unknown');
  const platformParts = [
    platform.kind,
    platform.cloud,
    platform.workerNodeType ? `workers ${platform.workerNodeType}` : null,
    platform.workers !== null ? `×${platform.workers}` : null,
    platform.autoscale ? `autoscale ${platform.autoscale.minWorkers}–${platform.autoscale.maxWorkers}` : null,
    platform.photon ? 'Photon' : null,
    platform.runtimeVersion,
  ].filter((part): part is string => Boolean(part));
  row('Platform', platformParts.join(', '));
  row('Started', dateTime(app.startTime));
  row(
    'Duration',
    app.durationMs !== null
      ? formatDuration(app.durationMs)
      : `unknown (no ApplicationEnd; ${formatDuration(app.observedSpanMs ?? 0)} observed)`,
  );
  row(
    'Executors',
    `${executors.totalAdded} added, at most ${executors.maxConcurrent} at once, ${countOf(executors.coresPerExecutor, 'core')} each`,
  );
  row(
    'Jobs / stages / tasks',
    `${totals.jobs} / ${totals.stages} / ${totals.tasks} (${totals.failedTasks} failed, ${totals.killedTasks} killed)`,
  );
  row(
    'I/O',
    `input ${formatBytes(totals.inputBytes)}, output ${formatBytes(totals.outputBytes)}, shuffle read ${formatBytes(totals.shuffleReadBytes)}, write ${formatBytes(totals.shuffleWriteBytes)}`,
  );
  row(
    'Spill',
    `${formatBytes(totals.memoryBytesSpilled)} memory, ${formatBytes(totals.diskBytesSpilled)} disk`,
  );
  row(
    'Time split',
    `driver only ${formatDuration(analysis.driverTimeMs)}, jobs running ${formatDuration(analysis.executorTimeMs)}`,
  );
  row(
    'Lower bounds',
    `critical path ${formatDuration(analysis.criticalPathMs)}, perfect parallelism ${formatDuration(analysis.idealTimeMs)}`,
  );
  const onCpu = coreTimeOnCpu(profile);
  row(
    'Core-hours',
    `${analysis.coreHoursUsed.toFixed(2)} in tasks of ${analysis.coreHoursAvailable.toFixed(2)} available: core time in tasks ${(analysis.utilization * 100).toFixed(0)}%${
      onCpu === null ? '' : `, core time on CPU ${(onCpu * 100).toFixed(0)}%`
    }`,
  );

  const stages = [...profile.stages]
    .filter((stage) => stage.tasks > 0)
    .sort((a, b) => b.executorRunTimeMs - a.executorRunTimeMs)
    .slice(0, topStageCount);
  if (stages.length > 0) {
    lines.push('', pc.bold('Top stages by executor run time'));
    const table = new Table({
      head: ['stage', 'name', 'tasks', 'wall', 'run time', 'median', 'max', 'shuffle r/w', 'spill'],
      style: { head: [], border: [] },
      chars: compactRows,
    });
    for (const stage of stages) {
      const wall =
        stage.submissionTime !== null && stage.completionTime !== null
          ? formatDuration(stage.completionTime - stage.submissionTime)
          : '—';
      table.push([
        `${stage.stageId}.${stage.attemptId}`,
        stage.name.length > 32 ? `${stage.name.slice(0, 31)}…` : stage.name,
        String(stage.tasks),
        wall,
        formatDuration(stage.executorRunTimeMs),
        formatDuration(stage.medianTaskMs),
        formatDuration(stage.maxTaskMs),
        `${formatBytes(stage.shuffleReadBytes)} / ${formatBytes(stage.shuffleWriteBytes)}`,
        formatBytes(stage.diskBytesSpilled),
      ]);
    }
    lines.push(table.toString());
  }

  lines.push('', pc.bold('Findings'));
  if (profile.findings.length === 0) lines.push('  none');
  for (const finding of profile.findings) {
    lines.push(
      `  ${severityColour[finding.severity](finding.severity.padEnd(8))} ${finding.id}: ${finding.message}`,
    );
  }

  lines.push('', pc.bold('What if (replaying the recorded tasks on other executor counts)'));
  const observed = profile.whatIf.find((point) => point.observed);
  const whatIf = new Table({
    head: ['executors', 'estimated duration', 'vs observed', 'core time in tasks'],
    style: { head: [], border: [] },
    chars: compactRows,
  });
  for (const point of profile.whatIf) {
    const change = observed
      ? `${point.estimatedDurationMs >= observed.estimatedDurationMs ? '+' : ''}${(
          (point.estimatedDurationMs / Math.max(1, observed.estimatedDurationMs) - 1) * 100
        ).toFixed(0)}%`
      : '—';
    whatIf.push([
      `${point.executors}${point.observed ? ' (observed)' : ''}`,
      formatDuration(point.estimatedDurationMs),
      point.observed ? '—' : change,
      `${(point.estimatedUtilization * 100).toFixed(0)}%`,
    ]);
  }
  lines.push(whatIf.toString());

  const { parse } = profile;
  if (parse.warnings.length > 0) {
    lines.push('', pc.bold('Warnings'));
    for (const warning of parse.warnings) lines.push(`  ${pc.yellow('!')} ${warning}`);
  }
  lines.push(
    '',
    pc.dim(
      `Read ${formatBytes(parse.bytesRead)} (${parse.lines} lines, ${parse.events} events, ${parse.malformedLines} malformed) from ${countOf(profile.source.parts.length, 'part')}.`,
    ),
  );
  return `${lines.join('\n')}\n`;
}
