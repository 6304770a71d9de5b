import { randomBytes } from 'node:crypto';
import type { Command } from '@commander-js/extra-typings';
import { ValidationError } from '@setpoint/foundation/errors';
import { openStore } from '../../composition/open-store.js';
import { loadConfig } from '../../config/load-config.js';
import {
  createUserService,
  type UserRole,
  type UserService,
  userRoles,
} from '../../service/auth/user-service.js';
import { createRepositories } from '../../service/repositories.js';
import { examples } from '../help-text.js';
import { formatTime, printJson, printTable } from '../output.js';
import { readStdin } from '../read-stdin.js';

async function withUsers<T>(
  dataDir: string | undefined,
  use: (users: UserService) => Promise<T>,
): Promise<T> {
  const config = loadConfig({ dataDir });
  const store = await openStore(config);
  try {
    return await use(createUserService(createRepositories(store.db)));
  } finally {
    await store.close();
  }
}

export function registerUsersCommand(program: Command): void {
  const users = program
    .command('users')
    .description('manage dashboard users directly on the database (local admin)')
    .addHelpText(
      'after',
      '\nExamples:\n  setpoint users create --username ana --role editor\n  echo "$PASSWORD" | setpoint users create --username ops --role viewer --password-stdin\n  setpoint users list',
    );

  users
    .command('create')
    .description('create a dashboard user (admin, editor or viewer)')
    .addHelpText(
      'after',
      examples(
        "echo 's3cret passphrase' | setpoint users create --username ana --role editor --password-stdin",
      ),
    )
    .requiredOption('--username <name>', 'sign-in name')
    .requiredOption('--role <role>', `one of ${userRoles.join(', ')}`)
    .option(
      '--password-stdin',
      'read the password from standard input (else one is generated and printed once)',
    )
    .option('--data-dir <dir>', 'data directory (default ./.setpoint)')
    .option('--json', 'print the user as JSON')
    .action(async (options) => {
      if (!userRoles.includes(options.role as UserRole)) {
        throw new ValidationError('INVALID_ROLE', `--role must be one of ${userRoles.join(', ')}`);
      }
      const password = options.passwordStdin ? await readStdin() : randomBytes(15).toString('base64url');
      const user = await withUsers(options.dataDir, (service) =>
        service.create(options.username, password, options.role as UserRole),
      );
      const shown = options.passwordStdin ? {} : { password };
      if (options.json) printJson({ username: user.username, role: user.role, ...shown });
      else {
        process.stdout.write(`created ${user.role} ${user.username}\n`);
        if (!options.passwordStdin) process.stdout.write(`password (shown once): ${password}\n`);
      }
    });

  users
    .command('list')
    .description('list dashboard users')
    .addHelpText('after', examples('setpoint users list', 'setpoint users list --json'))
    .option('--data-dir <dir>', 'data directory (default ./.setpoint)')
    .option('--json', 'print JSON')
    .action(async (options) => {
      const list = await withUsers(options.dataDir, (service) => service.list());
      if (options.json)
        return printJson(
          list.map((user) => ({ username: user.username, role: user.role, created_at: user.createdAt })),
        );
      printTable(
        ['USERNAME', 'ROLE', 'CREATED'],
        list.map((user) => [user.username, user.role, formatTime(user.createdAt)]),
      );
    });
}
