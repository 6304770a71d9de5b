import type { Command } from '@commander-js/extra-typings';
import { registerAnalyzeCommand } from './commands/analyze.js';
import { registerBenchCommand } from './commands/bench.js';
import { registerCompletionCommand } from './commands/completion.js';
import { registerConfigureCommand } from './commands/configure.js';
import { registerCostCommand } from './commands/cost.js';
import { registerDemoCommand } from './commands/demo.js';
import { registerEmrCommand } from './commands/emr.js';
import { registerEmulatorCommand } from './commands/emulator.js';
import { registerExportCommand } from './commands/export.js';
import { registerKeysCommand } from './commands/keys.js';
import { registerPricingCommand } from './commands/pricing.js';
import { registerProjectsCommand } from './commands/projects.js';
import { registerRecommendationsCommand } from './commands/recommendations.js';
import { registerRunsCommand } from './commands/runs.js';
import { registerServeCommand } from './commands/serve.js';
import { registerTokenCommand } from './commands/token.js';
import { registerUsersCommand } from './commands/users.js';
import { registerWorkerCommand } from './commands/worker.js';
import { registerWorkspacesCommand } from './commands/workspaces.js';

export type RegisterCommand = (program: Command) => void;

/** Every `setpoint <command>`; each lives in its own file under ./commands. */
export const commandRegistry: RegisterCommand[] = [
  registerServeCommand,
  registerWorkerCommand,
  registerKeysCommand,
  registerDemoCommand,
  registerAnalyzeCommand,
  registerCostCommand,
  registerPricingCommand,
  registerEmulatorCommand,
  registerBenchCommand,
  registerConfigureCommand,
  registerTokenCommand,
  registerProjectsCommand,
  registerRunsCommand,
  registerRecommendationsCommand,
  registerUsersCommand,
  registerWorkspacesCommand,
  registerEmrCommand,
  registerExportCommand,
  registerCompletionCommand,
];
