import type { Command } from '@commander-js/extra-typings';

export type RegisterCommand = (program: Command) => void;

/**
 * One `setpoint <command>`: what the root help shows, and how to load the module that defines it.
 * Modules load lazily so `--version` and `--help` never pay for the server, the optimizer or the emulator.
 */
export interface CommandEntry {
  name: string;
  aliases?: string[];
  /** The command's term in the root help, as commander prints it for the loaded command. */
  term: string;
  description: string;
  load: () => Promise<RegisterCommand>;
}

/** Every `setpoint <command>`; each lives in its own file under ./commands. */
export const commandRegistry: CommandEntry[] = [
  {
    name: 'serve',
    term: 'serve [options]',
    description: 'run the Setpoint API and dashboard (with the pipeline worker unless --no-worker)',
    load: async () => (await import('./commands/serve.js')).registerServeCommand,
  },
  {
    name: 'worker',
    term: 'worker [options]',
    description: 'run pipeline workers (ingest, parse, cost, recommendation) without the API',
    load: async () => (await import('./commands/worker.js')).registerWorkerCommand,
  },
  {
    name: 'keys',
    term: 'keys',
    description: 'manage API keys directly on the database (local admin)',
    load: async () => (await import('./commands/keys.js')).registerKeysCommand,
  },
  {
    name: 'backup',
    term: 'backup [options]',
    description:
      'copy a running SQLite deployment consistently (database with its WAL, catalogs); the keys stay apart',
    load: async () => (await import('./commands/backup.js')).registerBackupCommand,
  },
  {
    name: 'restore',
    term: 'restore [options]',
    description:
      'put a backup in place as the database, once the configured master key is shown to read its secrets',
    load: async () => (await import('./commands/restore.js')).registerRestoreCommand,
  },
  {
    name: 'demo',
    term: 'demo [options]',
    description:
      'the closed loop end to end: Setpoint + an emulated Databricks workspace whose jobs run on a fast clock',
    load: async () => (await import('./commands/demo.js')).registerDemoCommand,
  },
  {
    name: 'analyze',
    term: 'analyze [options] <path>',
    description:
      'profile one Spark run from its event log: summary, top stages, findings, what-if executor counts',
    load: async () => (await import('./commands/analyze.js')).registerAnalyzeCommand,
  },
  {
    name: 'cost',
    term: 'cost',
    description: 'what a cluster costs: estimates for hypothetical clusters and the Photon break-even',
    load: async () => (await import('./commands/cost.js')).registerCostCommand,
  },
  {
    name: 'pricing',
    term: 'pricing',
    description: 'the price catalog: what Setpoint believes, and imports',
    load: async () => (await import('./commands/pricing.js')).registerPricingCommand,
  },
  {
    name: 'emulator',
    term: 'emulator [options]',
    description:
      'run a local Databricks workspace emulator whose jobs run on simulated clusters (the Job Bank)',
    load: async () => (await import('./commands/emulator.js')).registerEmulatorCommand,
  },
  {
    name: 'bench',
    term: 'bench',
    description: "measure Setpoint's optimizer against published baselines",
    load: async () => (await import('./commands/bench.js')).loadBenchCommand(),
  },
  {
    name: 'configure',
    term: 'configure [options]',
    description: 'save the server URL and API key to ~/.setpoint/config (mode 0600)',
    load: async () => (await import('./commands/configure.js')).registerConfigureCommand,
  },
  {
    name: 'token',
    term: 'token [options]',
    description: 'exchange the configured API key for a bearer token and print it',
    load: async () => (await import('./commands/token.js')).registerTokenCommand,
  },
  {
    name: 'projects',
    term: 'projects',
    description: 'list, create and change projects (one per optimized job cluster)',
    load: async () => (await import('./commands/projects.js')).registerProjectsCommand,
  },
  {
    name: 'runs',
    term: 'runs',
    description: 'list runs and submit new ones for a project',
    load: async () => (await import('./commands/runs.js')).registerRunsCommand,
  },
  {
    name: 'recommendations',
    aliases: ['recs'],
    term: 'recommendations|recs',
    description: 'generate, inspect, apply and roll back cluster recommendations',
    load: async () => (await import('./commands/recommendations.js')).registerRecommendationsCommand,
  },
  {
    name: 'alerts',
    term: 'alerts',
    description: 'alert destinations (Slack, signed webhooks), rules, and the notifications sent',
    load: async () => (await import('./commands/alerts.js')).registerAlertsCommand,
  },
  {
    name: 'spend',
    term: 'spend [options]',
    description:
      'spend by project and by kind (compute, platform fees, storage, network, other) at your prices; default the last 30 days, as the dashboard',
    load: async () => (await import('./commands/spend.js')).registerSpendCommand,
  },
  {
    name: 'audit',
    term: 'audit',
    description: 'the audit trail: who changed what and when (admins), filtered, listed or exported',
    load: async () => (await import('./commands/audit.js')).registerAuditCommand,
  },
  {
    name: 'users',
    term: 'users',
    description: 'manage dashboard users directly on the database (local admin)',
    load: async () => (await import('./commands/users.js')).registerUsersCommand,
  },
  {
    name: 'workspaces',
    term: 'workspaces',
    description: 'connect Databricks workspaces, discover their jobs, import and detach them',
    load: async () => (await import('./commands/workspaces.js')).registerWorkspacesCommand,
  },
  {
    name: 'emr',
    term: 'emr',
    description:
      'AWS EMR accounts: check access and discover workloads locally; add, list, remove and import through the server',
    load: async () => (await import('./commands/emr.js')).registerEmrCommand,
  },
  {
    name: 'export',
    term: 'export [options] <project>',
    description:
      'print a recommendation as Terraform (with lifecycle ignore_changes), JSON, or an EMR RunJobFlow block',
    load: async () => (await import('./commands/export.js')).registerExportCommand,
  },
  {
    name: 'iac',
    term: 'iac',
    description:
      "write recommendations into the job's code (Terraform, bundles, Airflow DAGs) as reviewed changes",
    load: async () => (await import('./commands/iac.js')).registerIacCommand,
  },
  {
    name: 'completion',
    term: 'completion <shell>',
    description: 'print a tab-completion script for bash, zsh or fish (commands, subcommands, options)',
    load: async () => (await import('./commands/completion.js')).registerCompletionCommand,
  },
];
