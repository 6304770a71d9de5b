import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import { afterFirstRecommendation } from '../../demo/after-first-recommendation.js';
import { startClosedLoop } from '../../demo/closed-loop-driver.js';
import { defaultBackfillDays, demoPace, runPaced } from '../../demo/demo-pace.js';
import { demoStorageEnv } from '../../demo/demo-storage.js';
import { loopEpisodeOf, overallSummary, summarizeProject } from '../../demo/loop-summary.js';
import { validityCounts } from '../../demo/validity-counts.js';
import { stopOnSignals } from '../../server/start-server.js';
import { parseCount, parseNumberOption } from '../option-values.js';
import { printJson, printTable } from '../output.js';

/** The one thing to do next, framed so it stands out from the log lines around it. */
function signInBanner(link: string, password: string, emulatorUrl: string): string {
  const lines = [
    'Setpoint demo is running. Open this link to sign in (it works once):',
    '',
    `  ${link}`,
    '',
    `Afterwards, or in another browser: user demo, password ${password}`,
  ];
  const inner = Math.max(...lines.map((line) => line.length));
  const rule = '═'.repeat(inner + 2);
  const body = lines.map((line) => `║ ${line.padEnd(inner)} ║`);
  return `\n╔${rule}╗\n${body.join('\n')}\n╚${rule}╝\n(emulated workspace at ${emulatorUrl}; each job runs once a minute at --speed 1; Ctrl+C to stop)\n\n`;
}

/**
 * The job the demo imports in apply mode `approve-learning`: a nightly aggregation whose first
 * recommendations are learning runs that change its cluster (from the first run on, emulator seed 1), so a
 * person trying the demo meets one waiting for approval within a minute.
 */
export const demoApprovalJob = 'Daily aggregation';

export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description(
      'the closed loop end to end: Setpoint + an emulated Databricks workspace whose jobs run on a fast clock',
    )
    .option('--port <port>', 'dashboard port', '8080')
    .option(
      '--data-dir <dir>',
      'where the demo database lives (recreated on start)',
      path.join('.setpoint', 'demo'),
    )
    .option('--seed <n>', 'emulator seed', '1')
    .option('--headless', 'no dashboard: run --runs rounds and exit')
    .option('--runs <n>', 'runs per job (headless)', '10')
    .option('--json', 'print the summary as JSON (headless)')
    .option('--speed <x>', 'pace of the dashboard demo: at 1 each job runs once a minute', '1')
    .option(
      '--days <n>',
      'emulated days of history back-filled before now (at --speed 1 each day takes two minutes)',
      `${defaultBackfillDays}`,
    )
    .addHelpText(
      'after',
      `\nStarts an emulated Databricks workspace and an emulated AWS account (EMR), imports all their jobs\nand recurring EMR workloads with auto-apply on (${demoApprovalJob} in apply mode approve-learning: its\nlearning runs wait for your approval), and runs each job once a\nminute (staggered), back-filled over the --days before now so that no run lies after now; watch\nlearning, then optimizing, in the dashboard. The data directory is wiped at start; only the newest event logs are kept.\n\nExamples:\n  setpoint demo\n  setpoint demo --speed 4\n  setpoint demo --headless --runs 10 --json`,
    )
    .action(async (options) => {
      const runs = parseNumberOption('--runs', options.runs, { whole: true, min: 1 });
      const port = parseCount('--port', options.port, 0, 65_535);
      const seed = parseNumberOption('--seed', options.seed, { whole: true });
      const speed = parseNumberOption('--speed', options.speed, { min: 0.1, max: 60 });
      const days = parseNumberOption('--days', options.days, { min: 0.5, max: 13 });
      const pace = demoPace(speed, days);
      const progress = (line: string) => {
        if (!options.json) process.stderr.write(`${line}\n`);
      };
      const loop = await startClosedLoop({
        port: options.headless ? 0 : port,
        dataDir: options.dataDir,
        seed,
        log: progress,
        emr: true,
        approveLearningJobs: [demoApprovalJob],
        ...(options.headless ? {} : { clockSpeed: pace.clockSpeed, startTimeMs: pace.startTimeMs }),
        env: {
          ...demoStorageEnv,
          // JSON goes to stdout alone; the server's log lines would interleave with it
          ...(options.json ? { SETPOINT_LOG_LEVEL: 'silent' } : {}),
        },
      });
      if (!options.headless) {
        const services = loop.server.services;
        const password = randomBytes(18).toString('base64url');
        await services.users.create('demo', password, 'admin');
        const link = `${loop.server.url.replace('127.0.0.1', 'localhost')}/api/v1/session/demo?token=${services.demoSignIn.issue()}`;
        process.stdout.write(signInBanner(link, password, loop.emulator.url));
        const stopper = new AbortController();
        const paced = runPaced(loop, pace, { signal: stopper.signal, log: progress });
        await stopOnSignals({
          stop: async () => {
            stopper.abort();
            await paced;
            await loop.close();
          },
        });
        return;
      }
      try {
        for (let round = 0; round < runs; round += 1) await loop.round();
        const projects = [];
        const episodes = [];
        for (const job of loop.jobs) {
          for (const projectId of job.projectIds) {
            const project = await loop.server.services.projects.get(projectId);
            const runs = await loop.runsOf(projectId);
            projects.push({
              ...summarizeProject(project.name, runs, project.settings.slaMinutes, project.phase),
              applyMode: project.settings.applyMode,
              approvals: await loop.approvalsOf(projectId),
            });
            episodes.push(loopEpisodeOf(runs, project.settings.slaMinutes));
          }
        }
        const summary = {
          projects,
          overall: {
            ...overallSummary(projects),
            afterFirstRecommendation: afterFirstRecommendation(episodes),
            // writes the emulated platforms refused, and those Setpoint refused itself before writing
            validity: await validityCounts(loop),
          },
        };
        if (options.json) printJson(summary);
        else {
          const pct = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(0)}%`);
          printTable(
            ['PROJECT', 'FIRST $', 'LAST $', 'SAVING', 'SLA', 'SLA MET', 'PHASE', 'APPLY'],
            projects.map((p) => [
              p.project,
              p.firstCost?.toFixed(2),
              p.lastCost?.toFixed(2),
              pct(p.saving),
              p.slaMinutes,
              `${p.slaMetLastRuns.met}/${p.slaMetLastRuns.of}`,
              p.phase,
              p.applyMode === 'approve-learning'
                ? `approve learning (${p.approvals.superseded} superseded, ${p.approvals.waiting} waiting)`
                : p.applyMode,
            ]),
          );
          process.stdout.write(
            `median saving ${pct(summary.overall.medianSaving)} (last run), ${pct(summary.overall.medianSavingAfterFirstRecommendation)} (every run after the first), SLA violations after learning ${pct(summary.overall.slaViolationRateAfterLearning)}, ` +
              `every run after the first recommendation ${pct(summary.overall.afterFirstRecommendation.slaViolationRate)} ` +
              `(worst ${summary.overall.afterFirstRecommendation.runtimeOverSla.max?.toFixed(2) ?? '–'}× its SLA)\n`,
          );
          const { validity } = summary.overall;
          process.stdout.write(
            `writes the platform refused ${validity.refusedByPlatform}, Setpoint refused before writing ${validity.refusedBySetpoint}` +
              `${validity.examples.length > 0 ? `: ${validity.examples.join('; ')}` : ''}\n`,
          );
        }
      } finally {
        await loop.close();
      }
    });
}
