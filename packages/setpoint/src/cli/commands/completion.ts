import { Argument, type Command } from '@commander-js/extra-typings';
import { commandTree } from '../completion/command-tree.js';
import {
  type CompletionShell,
  completionScript,
  completionShells,
} from '../completion/completion-scripts.js';

export function registerCompletionCommand(program: Command): void {
  program
    .command('completion')
    .description('print a tab-completion script for bash, zsh or fish (commands, subcommands, options)')
    .addArgument(new Argument('<shell>', 'the shell to complete in').choices(completionShells))
    .addHelpText(
      'after',
      `
Install:
  bash  echo 'source <(setpoint completion bash)' >> ~/.bashrc
        (or: setpoint completion bash > /etc/bash_completion.d/setpoint)
  zsh   setpoint completion zsh > "\${fpath[1]}/_setpoint"   # then restart zsh
        (or in ~/.zshrc after compinit: source <(setpoint completion zsh))
  fish  setpoint completion fish > ~/.config/fish/completions/setpoint.fish

Open a new shell afterwards. Regenerate after upgrading Setpoint: the script lists the commands
of the version that printed it.

Examples:
  setpoint completion bash
  setpoint completion zsh > ~/.zfunc/_setpoint`,
    )
    .action((shell) => {
      process.stdout.write(completionScript(shell as CompletionShell, commandTree(program)));
    });
}
