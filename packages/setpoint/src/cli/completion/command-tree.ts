import type { Command } from '@commander-js/extra-typings';

/** What shell completion needs to know about one command: names, flags and subcommands. */
export interface CommandNode {
  name: string;
  aliases: string[];
  description: string;
  /** Every flag spelling, e.g. `--json`, `-V`, `--no-worker`. */
  flags: { flag: string; description: string }[];
  /** Allowed values of the first argument, when it has a fixed set (e.g. the shells). */
  argumentChoices: string[];
  subcommands: CommandNode[];
}

/** Reads the command tree from commander, so completion never drifts from the real commands. */
export function commandTree(
  command: Command<unknown[], Record<string, unknown>, Record<string, unknown>>,
): CommandNode {
  const flags: CommandNode['flags'] = [];
  for (const option of command.createHelp().visibleOptions(command)) {
    for (const flag of [option.short, option.long]) {
      if (flag && !flags.some((known) => known.flag === flag))
        flags.push({ flag, description: option.description });
    }
  }
  return {
    name: command.name(),
    aliases: command.aliases(),
    description: command.description(),
    flags,
    argumentChoices: [...(command.registeredArguments[0]?.argChoices ?? [])],
    subcommands: command.commands.filter((sub) => sub.name() !== 'help').map((sub) => commandTree(sub)),
  };
}

export interface CommandPath {
  /** `""` for the program itself, else `/projects/list`. */
  path: string;
  node: CommandNode;
}

/** Every command with its slash-separated path, the program first. */
export function commandPaths(root: CommandNode, prefix = ''): CommandPath[] {
  return [
    { path: prefix, node: root },
    ...root.subcommands.flatMap((sub) => commandPaths(sub, `${prefix}/${sub.name}`)),
  ];
}
