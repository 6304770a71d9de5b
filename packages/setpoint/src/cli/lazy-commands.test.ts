import { describe, expect, it } from 'vitest';
import { commandRegistry } from './command-registry.js';
import { buildProgram, commandNamed } from './main.js';

function helpOf(program: Awaited<ReturnType<typeof buildProgram>>): string {
  let text = '';
  program.configureOutput({ writeOut: (chunk) => (text += chunk) });
  program.outputHelp();
  return text;
}

describe('lazily loaded commands', () => {
  it('print the same root help as the fully loaded program', async () => {
    const lazy = helpOf(await buildProgram(['--help']));
    const full = helpOf(await buildProgram('all'));

    expect(lazy).toBe(full);
    for (const entry of commandRegistry) expect(lazy).toContain(entry.name);
  });

  it('name the command a command line asks for, through options, aliases and `help`', () => {
    expect(commandNamed(['--debug', 'serve', '--port', '9'])?.name).toBe('serve');
    expect(commandNamed(['recs', 'list'])?.name).toBe('recommendations');
    expect(commandNamed(['help', 'keys'])?.name).toBe('keys');
    expect(commandNamed(['--version'])).toBeUndefined();
    expect(commandNamed(['frobnicate'])).toBeUndefined();
  });

  it('define only the named command fully; the others stand in with their description', async () => {
    const program = await buildProgram(['keys', 'list']);
    const keys = program.commands.find((command) => command.name() === 'keys');
    const serve = program.commands.find((command) => command.name() === 'serve');

    expect(keys?.commands.map((command) => command.name())).toContain('list');
    expect(serve?.options).toHaveLength(0);
    expect(serve?.description()).toMatch(/API and dashboard/);
  });

  it('load every command for shell completion, which lists them all', async () => {
    const program = await buildProgram(['completion', 'bash']);

    for (const command of program.commands.filter((command) => command.name() !== 'completion'))
      expect(command.commands.length + command.options.length).toBeGreaterThan(0);
  });
});
