import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';
import { type SpawnedServer, spawnSetpoint } from '../support/spawn-server.js';

const root = mkdtempSync(path.join(tmpdir(), 'setpoint-every-command-'));
const notADirectory = path.join(root, 'not-a-directory.json');
const badJson = path.join(root, 'bad.json');
writeFileSync(notADirectory, '{"a":1}\n');
writeFileSync(badJson, 'garbage\n{');
const missing = path.join(root, 'missing');

interface BadInput {
  args: string[];
  exitCode: number;
  stderr: RegExp;
  /** Needs the configured server of this suite. */
  remote?: boolean;
}

/** One bad-input case per command; the first test checks this list names every command there is. */
const badInputs: Record<string, BadInput> = {
  serve: { args: ['serve', '--port', 'not-a-port'], exitCode: 8, stderr: /invalid configuration: .*port/ },
  worker: { args: ['worker', '--concurrency', 'zero'], exitCode: 8, stderr: /workerConcurrency/ },
  'keys create': { args: ['keys', 'create'], exitCode: 2, stderr: /required option '--name <name>'/ },
  'keys list': {
    args: ['keys', 'list', '--data-dir', notADirectory],
    exitCode: 2,
    stderr: /cannot mkdir .*not-a-directory\.json: a file is in the way$/,
  },
  'keys reencrypt': {
    args: ['keys', 'reencrypt', '--data-dir', notADirectory],
    exitCode: 2,
    stderr: /cannot mkdir .*not-a-directory\.json: a file is in the way$/,
  },
  backup: {
    args: ['backup', '--out', path.join(root, 'backup-of-nothing'), '--data-dir', missing],
    exitCode: 2,
    stderr: /missing[/]setpoint\.db does not exist: nothing to back up$/,
  },
  restore: {
    args: ['restore', '--from', missing],
    exitCode: 2,
    stderr: /missing is not a Setpoint backup \(no readable backup\.json beside setpoint\.db\)/,
  },
  'keys revoke': { args: ['keys', 'revoke'], exitCode: 2, stderr: /missing required argument 'id'/ },
  demo: {
    args: ['demo', '--port', 'nope'],
    exitCode: 2,
    stderr: /--port expects a whole number from 0 to 65535, got "nope"$/,
  },
  analyze: { args: ['analyze', missing], exitCode: 3, stderr: /missing: no such file or directory$/ },
  'emr check': {
    args: ['emr', 'check', '--region', 'us-east-1', '--role-arn', 'arn:aws:iam::1:role/x'],
    exitCode: 2,
    stderr: /a role ARN looks like arn:aws:iam::123456789012:role\/name/,
  },
  'emr discover': {
    args: ['emr', 'discover', '--region', 'us-east-1', '--since-days', '0'],
    exitCode: 2,
    stderr: /--since-days expects a whole number from 1 to 90, got "0"/,
  },
  'emr add': {
    args: ['emr', 'add', '--name', 'x', '--region', 'us-east-1', '--group-by', 'by-magic'],
    exitCode: 2,
    stderr: /--group-by expects tag\[:KEY\], cluster-name, name-pattern:REGEX or step-name, got "by-magic"$/,
  },
  'emr list': {
    args: ['emr', 'list', '--profile', 'nosuch'],
    exitCode: 8,
    stderr: /no profile "nosuch"/,
  },
  'emr remove': { args: ['emr', 'remove'], exitCode: 2, stderr: /missing required argument 'account'/ },
  'emr import': {
    args: ['emr', 'import', 'wsp_missing', 'orders', '--since-days', '0'],
    exitCode: 2,
    stderr: /--since-days expects a whole number from 1 to 90, got "0"/,
  },
  'emr serverless-discover': {
    args: ['emr', 'serverless-discover', 'wsp_missing', '--since-days', '91'],
    exitCode: 2,
    stderr: /--since-days expects a whole number from 1 to 90, got "91"/,
  },
  'emr serverless-import': {
    args: ['emr', 'serverless-import', 'wsp_missing', 'orders'],
    exitCode: 2,
    stderr: /required option '--application <id>' not specified/,
  },
  'cost estimate': {
    args: [
      'cost',
      'estimate',
      '--cloud',
      'aws',
      '--region',
      'us-east-1',
      '--node-type',
      'm5.xlarge',
      '--workers',
      '2',
      '--autoscale',
      '2:8',
    ],
    exitCode: 2,
    stderr: /--workers|--autoscale/,
  },
  'cost photon-breakeven': {
    args: ['cost', 'photon-breakeven', '--node-type', 'm5.xlarge'],
    exitCode: 2,
    stderr: /--workers is required$/,
  },
  'pricing show': {
    args: ['pricing', 'show', 'nope.xlarge'],
    exitCode: 3,
    stderr: /unknown aws instance type nope\.xlarge/,
  },
  'pricing import': { args: ['pricing', 'import'], exitCode: 2, stderr: /give exactly one of --aws-offer/ },
  emulator: {
    args: ['emulator', '--faults', badJson],
    exitCode: 2,
    stderr: /--faults .*bad\.json: .*not valid JSON/,
  },
  'emulator import-workload': {
    args: ['emulator', 'import-workload', notADirectory],
    exitCode: 2,
    stderr: /required option '--name <name>'/,
  },
  'bench sweep': { args: ['bench', 'sweep'], exitCode: 2, stderr: /required option '--dataset <csv>'/ },
  'bench iac-drift': {
    args: ['bench', 'iac-drift', '--seed', '0'],
    exitCode: 2,
    stderr: /--seed expects a whole number from 1 to 1000000, got "0"$/,
  },
  'bench jobbank': {
    args: ['bench', 'jobbank', '--runs', 'zero'],
    exitCode: 2,
    stderr: /--runs expects a whole number from 2 to 100, got "zero"$/,
  },
  'bench sim': {
    args: ['bench', 'sim', '--runs', '0'],
    exitCode: 2,
    stderr: /--runs expects a whole number from 2 to 200, got "0"$/,
  },
  configure: {
    args: ['configure', '--url', 'not-a-url', '--api-key-id', 'a', '--api-key-secret', 'b'],
    exitCode: 2,
    stderr: /--url must be a URL such as http:\/\/localhost:8080, got "not-a-url"$/,
  },
  token: {
    args: ['token', '--profile', 'nosuch'],
    exitCode: 8,
    stderr: /no profile "nosuch" in .*config; run `setpoint configure --profile nosuch`$/,
  },
  'projects list': {
    args: ['projects', 'list', '--limit', 'many'],
    exitCode: 2,
    stderr: /option '--limit <n>' argument 'many' is invalid\. expected a whole number/,
  },
  'projects get': {
    args: ['projects', 'get', 'prj_missing'],
    exitCode: 3,
    stderr: /^setpoint: project prj_missing does not exist$/,
    remote: true,
  },
  'projects create': {
    args: ['projects', 'create'],
    exitCode: 2,
    stderr: /projects create needs --name/,
    remote: true,
  },
  'projects update': {
    args: ['projects', 'update', 'prj_missing', '--name', 'x'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'projects delete': {
    args: ['projects', 'delete', 'prj_missing', '--yes'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'projects reset': {
    args: ['projects', 'reset', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'projects link-source': {
    args: [
      'projects',
      'link-source',
      'prj_missing',
      '--repo',
      'https://example.com/x.git',
      '--path',
      'jobs.tf',
      '--format',
      'hcl',
    ],
    exitCode: 2,
    stderr: /--format must be one of terraform, bundle, airflow$/,
  },
  'projects unlink-source': {
    args: ['projects', 'unlink-source', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'projects form-factor': {
    args: ['projects', 'form-factor', 'prj_missing', '--approve', '--dismiss'],
    exitCode: 2,
    stderr: /pass --approve or --dismiss, not both$/,
  },
  'projects source': {
    args: ['projects', 'source', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'iac diff': {
    args: ['iac', 'diff', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'iac propose': {
    args: ['iac', 'propose', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'iac proposals': {
    args: ['iac', 'proposals', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'runs list': {
    args: ['runs', 'list', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'runs get': {
    args: ['runs', 'get', 'prj_missing', 'run_missing'],
    exitCode: 3,
    stderr: /run run_missing does not exist in project prj_missing$/,
    remote: true,
  },
  'runs submit': {
    args: ['runs', 'submit', 'prj_missing', missing],
    exitCode: 2,
    stderr: /no such file: .*missing$/,
    remote: true,
  },
  'recommendations generate': {
    args: ['recommendations', 'generate', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'recommendations get': {
    args: ['recs', 'get', 'prj_missing', 'rec_missing'],
    exitCode: 3,
    stderr: /recommendation rec_missing does not exist in project prj_missing$/,
    remote: true,
  },
  'recommendations latest': {
    args: ['recommendations', 'latest', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'recommendations list': {
    args: ['recommendations', 'list', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'recommendations apply': {
    args: ['recommendations', 'apply', 'prj_missing', 'rec_missing'],
    exitCode: 3,
    stderr: /recommendation rec_missing does not exist in project prj_missing$/,
    remote: true,
  },
  'recommendations awaiting': {
    args: ['recommendations', 'awaiting', '--project', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'recommendations approve': {
    args: ['recommendations', 'approve', 'prj_missing', 'rec_missing'],
    exitCode: 3,
    stderr: /recommendation rec_missing does not exist in project prj_missing$/,
    remote: true,
  },
  'recommendations reject': {
    args: ['recommendations', 'reject', 'prj_missing', 'rec_missing', '--reason', ' '],
    exitCode: 2,
    stderr: /--reason must be 1 to 500 characters of text \(or leave --reason out\)$/,
    remote: true,
  },
  'recommendations applied': {
    args: ['recommendations', 'applied', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'recommendations rollback': {
    args: ['recommendations', 'rollback', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'recommendations resume': {
    args: ['recommendations', 'resume', 'prj_missing'],
    exitCode: 3,
    stderr: /project prj_missing does not exist$/,
    remote: true,
  },
  'users create': {
    args: ['users', 'create', '--username', 'a', '--role', 'wizard'],
    exitCode: 2,
    stderr: /--role must be one of admin, editor, viewer$/,
  },
  'users list': {
    args: ['users', 'list', '--data-dir', notADirectory],
    exitCode: 2,
    stderr: /cannot mkdir .*not-a-directory\.json: a file is in the way$/,
  },
  'users disable': {
    args: ['users', 'disable', 'nobody', '--data-dir', missing],
    exitCode: 3,
    stderr: /user nobody does not exist$/,
  },
  'users enable': {
    args: ['users', 'enable', 'nobody', '--data-dir', missing],
    exitCode: 3,
    stderr: /user nobody does not exist$/,
  },
  'users set-role': {
    args: ['users', 'set-role', 'nobody', '--role', 'wizard'],
    exitCode: 2,
    stderr: /--role must be one of admin, editor, viewer$/,
  },
  'users reset-password': {
    args: ['users', 'reset-password', 'nobody', '--data-dir', missing],
    exitCode: 3,
    stderr: /user nobody does not exist$/,
  },
  'users delete': {
    args: ['users', 'delete', 'nobody', '--data-dir', missing],
    exitCode: 3,
    stderr: /user nobody does not exist$/,
  },
  'workspaces add': {
    args: [
      'workspaces',
      'add',
      '--host',
      'https://x',
      '--token',
      't',
      '--cloud',
      'mars',
      '--region',
      'r',
      '--plan',
      'premium',
    ],
    exitCode: 2,
    stderr: /--cloud must be aws or azure$/,
  },
  'workspaces list': {
    args: ['workspaces', 'list', '--profile', 'nosuch'],
    exitCode: 8,
    stderr: /no profile "nosuch"/,
  },
  'workspaces auth': {
    args: ['workspaces', 'auth', 'ws_1', '--auth-type', 'oauth-m2m'],
    exitCode: 2,
    stderr: /--auth-type oauth-m2m needs --client-id$/,
    remote: true,
  },
  'workspaces check': {
    args: ['workspaces', 'check', 'ws_missing'],
    exitCode: 3,
    stderr: /workspace ws_missing does not exist$/,
    remote: true,
  },
  'workspaces discover': {
    args: ['workspaces', 'discover', 'ws_missing'],
    exitCode: 3,
    stderr: /workspace ws_missing does not exist$/,
    remote: true,
  },
  'workspaces import': {
    args: ['workspaces', 'import', 'ws_missing', '1'],
    exitCode: 3,
    stderr: /workspace ws_missing does not exist$/,
    remote: true,
  },
  'workspaces remove': {
    args: ['workspaces', 'remove', 'ws_missing', '--yes'],
    exitCode: 3,
    stderr: /workspace ws_missing does not exist$/,
    remote: true,
  },
  'workspaces detach': {
    args: ['workspaces', 'detach', 'ws_missing'],
    exitCode: 2,
    stderr: /missing required argument 'job'/,
  },
  export: {
    args: ['export', 'prj_missing', '--format', 'yaml'],
    exitCode: 2,
    stderr: /--format must be terraform, json or emr$/,
    remote: true,
  },
  'alerts destinations': {
    args: ['alerts', 'destinations', '--profile', 'nowhere'],
    exitCode: 8,
    stderr: /profile "nowhere"/,
  },
  'alerts add-slack': {
    args: ['alerts', 'add-slack', '--name', 'x', '--url', 'http://169.254.169.254/hook'],
    exitCode: 2,
    stderr: /169\.254\.169\.254/,
    remote: true,
  },
  'alerts add-webhook': {
    args: ['alerts', 'add-webhook', '--name', 'x', '--url', 'https://hooks.example.com'],
    exitCode: 2,
    stderr: /required option '--signing-secret <secret>'/,
  },
  'alerts delete-destination': {
    args: ['alerts', 'delete-destination', 'dst_missing'],
    exitCode: 3,
    stderr: /alert destination dst_missing does not exist$/,
    remote: true,
  },
  'alerts update-destination': {
    args: ['alerts', 'update-destination', 'dst_missing', '--name', 'renamed'],
    exitCode: 3,
    stderr: /alert destination dst_missing does not exist$/,
    remote: true,
  },
  'alerts rules': {
    args: ['alerts', 'rules', '--profile', 'nowhere'],
    exitCode: 8,
    stderr: /profile "nowhere"/,
  },
  'alerts add-rule': {
    args: ['alerts', 'add-rule', '--event', 'meteor_strike', '--destination', 'dst_x'],
    exitCode: 2,
    stderr: /Allowed choices are sla_missed, /,
  },
  'alerts delete-rule': {
    args: ['alerts', 'delete-rule', 'alr_missing'],
    exitCode: 3,
    stderr: /alert rule alr_missing does not exist$/,
    remote: true,
  },
  'alerts retry': {
    args: ['alerts', 'retry', 'ntf_missing'],
    exitCode: 3,
    stderr: /notification ntf_missing does not exist$/,
    remote: true,
  },
  'alerts update-rule': {
    args: ['alerts', 'update-rule', 'alr_missing', '--disable'],
    exitCode: 3,
    stderr: /alert rule alr_missing does not exist$/,
    remote: true,
  },
  'alerts add-email': {
    args: [
      'alerts',
      'add-email',
      '--name',
      'x',
      '--smtp-host',
      'mail.example.com',
      '--from',
      'a@example.com',
      '--to',
      'b@example.com',
      '--smtp-password-stdin',
    ],
    exitCode: 2,
    stderr: /--smtp-password-stdin needs --smtp-user$/,
  },
  'alerts notifications': {
    args: ['alerts', 'notifications', '--limit', '0'],
    exitCode: 2,
    stderr: /option '--limit <n>' argument '0' is invalid/,
  },
  'audit list': {
    args: ['audit', 'list', '--since', 'last tuesday'],
    exitCode: 2,
    stderr: /option '--since <time>' argument 'last tuesday' is invalid\. expected an ISO 8601 date/,
  },
  spend: {
    args: ['spend', '--since', '2026-12-01', '--until', '2026-11-01'],
    exitCode: 2,
    stderr: /^setpoint: --since must be before --until$/,
  },
  'audit export': {
    args: ['audit', 'export', '--format', 'xlsx'],
    exitCode: 2,
    stderr: /Allowed choices are csv, json/,
  },
  completion: {
    args: ['completion', 'powershell'],
    exitCode: 2,
    stderr: /Allowed choices are bash, zsh, fish/,
  },
};

/** Every command path (`projects list`), read from the real binary's help, groups included. */
async function discoverCommands(): Promise<{ leaves: string[]; helps: Map<string, string> }> {
  const helps = new Map<string, string>();
  const leaves: string[] = [];
  async function visit(commandPath: string[]) {
    const help = await runCli([...commandPath, '--help']);
    expect(help.code, `${commandPath.join(' ')} --help`).toBe(0);
    helps.set(commandPath.join(' '), help.stdout);
    const section = help.stdout.split(/\nCommands:\n/)[1]?.split(/\n\n/)[0];
    const names = (section ?? '')
      .split('\n')
      .map((line) => /^ {2}([a-z][\w-]*)/.exec(line)?.[1])
      .filter((name): name is string => Boolean(name) && name !== 'help');
    // A pure group (only --help, only subcommands) does nothing itself; every other command runs.
    const options = help.stdout.split(/\nOptions:\n/)[1]?.split(/\n\n/)[0] ?? '';
    const pureGroup = names.length > 0 && options.trim().startsWith('-h, --help');
    if (commandPath.length > 0 && !pureGroup) leaves.push(commandPath.join(' '));
    for (const name of names) await visit([...commandPath, name]);
  }
  await visit([]);
  return { leaves: leaves.sort(), helps };
}

describe('every setpoint command through the real binary', () => {
  let server: SpawnedServer;
  const env = {
    SETPOINT_HOME: path.join(root, 'home'),
    SETPOINT_DATA_DIR: path.join(root, 'data'),
    SETPOINT_LOG_LEVEL: 'warn',
    NO_COLOR: '1',
    SETPOINT_OUTBOUND_ALLOW_LIST: '127.0.0.1',
  };

  beforeAll(async () => {
    server = await spawnSetpoint(['serve', '--port', '0'], /listening on (http:\/\/\S+)/, env);
    const key = JSON.parse(
      (await runCli(['keys', 'create', '--name', 'every', '--json'], { env })).stdout,
    ) as {
      id: string;
      secret: string;
    };
    const configured = await runCli(
      ['configure', '--url', server.url, '--api-key-id', key.id, '--api-key-secret', key.secret],
      { env },
    );
    expect(configured.code, configured.stderr).toBe(0);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('has a bad-input case for every command and examples in every command’s help', async () => {
    const { leaves, helps } = await discoverCommands();

    expect(leaves).toEqual(Object.keys(badInputs).sort());
    for (const [name, help] of helps) {
      expect(help, `setpoint ${name} --help`).toMatch(/\nExamples:\n {2}.*\bsetpoint /);
    }
    expect(helps.get('')).toContain('Exit codes:');
  }, 300_000);

  it.each(Object.entries(badInputs))(
    '%s: bad input exits non-zero with one readable line',
    async (_name, bad) => {
      const result = await runCli(bad.args, {
        env: bad.remote ? env : { ...env, SETPOINT_DATA_DIR: path.join(root, 'local') },
      });

      expect(result.code, result.stderr).toBe(bad.exitCode);
      expect(result.stderr).toMatch(/^setpoint: [^\n]+\n$/);
      expect(result.stderr.trim()).toMatch(bad.stderr);
      expect(result.stderr).not.toMatch(/\n\s+at /);
    },
    60_000,
  );

  it('adds the stack trace with --debug', async () => {
    const result = await runCli(['--debug', 'projects', 'get', 'prj_missing'], { env });

    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^setpoint: project prj_missing does not exist\n/);
    expect(result.stderr).toMatch(/\n\s+at /);
  });
});
