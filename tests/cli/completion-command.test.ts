import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../support/run-cli.js';

const root = mkdtempSync(path.join(tmpdir(), 'setpoint-completion-'));

function hasShell(shell: string): boolean {
  return spawnSync(shell, ['-c', 'exit 0']).status === 0;
}

/** Sources the script in a real bash and asks it to complete `words` (the last one being typed). */
function bashComplete(scriptFile: string, words: string[]): { registered: string; reply: string[] } {
  const program = [
    `source ${JSON.stringify(scriptFile)}`,
    'complete -p setpoint',
    `COMP_WORDS=(${words.map((word) => JSON.stringify(word)).join(' ')})`,
    `COMP_CWORD=${words.length - 1}`,
    '_setpoint_completion',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash array expansion, not a template
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join('\n');
  const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8' });
  expect(result.stderr).toBe('');
  const [registered = '', ...reply] = result.stdout.trim().split('\n');
  return { registered, reply };
}

describe('setpoint completion', () => {
  it('prints a bash script that registers itself and completes commands, subcommands and options', async () => {
    const result = await runCli(['completion', 'bash']);
    expect(result.code).toBe(0);
    const scriptFile = path.join(root, 'setpoint.bash');
    writeFileSync(scriptFile, result.stdout);

    const top = bashComplete(scriptFile, ['setpoint', 'pro']);
    const sub = bashComplete(scriptFile, ['setpoint', 'recs', '']);
    const options = bashComplete(scriptFile, ['setpoint', '--debug', 'projects', 'list', '--']);
    const shells = bashComplete(scriptFile, ['setpoint', 'completion', '']);

    expect(top.registered).toBe('complete -o default -F _setpoint_completion setpoint');
    expect(top.reply).toEqual(['projects']);
    expect(sub.reply).toEqual(expect.arrayContaining(['generate', 'latest', 'apply', 'rollback']));
    expect(options.reply).toEqual(expect.arrayContaining(['--json', '--search', '--phase', '--profile']));
    expect(options.reply).not.toContain('--eventlog-uri');
    expect(shells.reply).toEqual(expect.arrayContaining(['bash', 'zsh', 'fish']));
  });

  it('prints zsh and fish scripts that know every subcommand', async () => {
    const zsh = await runCli(['completion', 'zsh']);
    const fish = await runCli(['completion', 'fish']);

    expect(zsh.code).toBe(0);
    expect(zsh.stdout).toMatch(/^#compdef setpoint\n/);
    expect(zsh.stdout).toContain("'reset:forget what Setpoint learned and start learning again");
    expect(zsh.stdout).toContain('/recs) cmdpath=/recommendations ;;');
    expect(fish.code).toBe(0);
    expect(fish.stdout).toContain(
      `complete -c setpoint -f -n 'test (__setpoint_path) = "/workspaces"' -a 'discover'`,
    );
    expect(fish.stdout).toContain(`-n 'test (__setpoint_path) = "/projects/list"' -l json`);
  });

  it.skipIf(!hasShell('zsh'))('writes a zsh script zsh can parse', async () => {
    const file = path.join(root, '_setpoint');
    writeFileSync(file, (await runCli(['completion', 'zsh'])).stdout);

    expect(spawnSync('zsh', ['-n', file], { encoding: 'utf8' }).status).toBe(0);
  });

  it.skipIf(!hasShell('fish'))('writes a fish script fish can parse', async () => {
    const file = path.join(root, 'setpoint.fish');
    writeFileSync(file, (await runCli(['completion', 'fish'])).stdout);

    expect(spawnSync('fish', ['--no-execute', file], { encoding: 'utf8' }).status).toBe(0);
  });

  it('names the shells it supports when given another one', async () => {
    const result = await runCli(['completion', 'powershell']);

    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "setpoint: command-argument value 'powershell' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish. (run with --help for usage)\n",
    );
  });

  it('explains how to install the script in its help', async () => {
    const result = await runCli(['completion', '--help']);

    expect(result.code).toBe(0);
    expect(result.stdout).toContain("echo 'source <(setpoint completion bash)' >> ~/.bashrc");
    expect(result.stdout).toContain('~/.config/fish/completions/setpoint.fish');
  });
});
