import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { Command } from '@commander-js/extra-typings';
import { startClosedLoop } from '../../demo/closed-loop-driver.js';
import { overallSummary, summarizeProject } from '../../demo/loop-summary.js';
import { stopOnSignals } from '../../server/start-server.js';
import { parseCount, parseNumberOption } from '../option-values.js';
import { printJson, printTable } from '../output.js';

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
    .addHelpText(
      'after',
      '\nStarts an emulated workspace, imports all its jobs with auto-apply on, and runs them round after round;\nwatch learning and optimizing in the dashboard. The data directory is wiped at start.\n\nExamples:\n  setpoint demo\n  setpoint demo --headless --runs 10 --json',
    )
    .action(async (options) => {
      const runs = parseNumberOption('--runs', options.runs, { whole: true, min: 1 });
      const port = parseCount('--port', options.port, 0, 65_535);
      const seed = parseNumberOption('--seed', options.seed, { whole: true });
      const progress = (line: string) => {
        if (!options.json) process.stderr.write(`${line}\n`);
      };
      const loop = await startClosedLoop({
        port: options.headless ? 0 : port,
        dataDir: options.dataDir,
        seed,
        log: progress,
        // JSON goes to stdout alone; the server's log lines would interleave with it
        env: options.json ? { SETPOINT_LOG_LEVEL: 'silent' } : {},
      });
      if (!options.headless) {
        const services = loop.server.services;
        await services.users.create('demo', randomBytes(18).toString('base64url'), 'admin');
        services.demoLoginToken = randomBytes(18).toString('base64url');
        const dashboard = `${loop.server.url.replace('127.0.0.1', 'localhost')}/api/v1/session/demo?token=${services.demoLoginToken}`;
        process.stdout.write(
          `Setpoint demo running. Open ${dashboard} — it signs you in as the demo admin.\n(emulated workspace at ${loop.emulator.url}; jobs run round after round; Ctrl+C to stop)\n`,
        );
        let stopped = false;
        const stopping = stopOnSignals({
          stop: async () => {
            stopped = true;
            await loop.close();
          },
        });
        while (!stopped)
          await loop.round().catch((error: unknown) => progress(`round failed: ${String(error)}`));
        await stopping;
        return;
      }
      try {
        for (let round = 0; round < runs; round += 1) await loop.round();
        const projects = [];
        for (const job of loop.jobs) {
          for (const projectId of job.projectIds) {
            const project = await loop.server.services.projects.get(projectId);
            projects.push(
              summarizeProject(
                project.name,
                await loop.runsOf(projectId),
                project.settings.slaMinutes,
                project.phase,
              ),
            );
          }
        }
        const summary = { projects, overall: overallSummary(projects) };
        if (options.json) printJson(summary);
        else {
          const pct = (value: number | null) => (value === null ? '—' : `${(value * 100).toFixed(0)}%`);
          printTable(
            ['PROJECT', 'FIRST $', 'LAST $', 'SAVING', 'SLA', 'SLA MET', 'PHASE'],
            projects.map((p) => [
              p.project,
              p.firstCost?.toFixed(2),
              p.lastCost?.toFixed(2),
              pct(p.saving),
              p.slaMinutes,
              `${p.slaMetLastRuns.met}/${p.slaMetLastRuns.of}`,
              p.phase,
            ]),
          );
          process.stdout.write(
            `median saving ${pct(summary.overall.medianSaving)}, SLA violations after learning ${pct(summary.overall.slaViolationRateAfterLearning)}\n`,
          );
        }
      } finally {
        await loop.close();
      }
    });
}
