import { randomBytes } from 'node:crypto';
import type { Command } from '@commander-js/extra-typings';
import { NotFoundError, ValidationError } from '@setpoint/foundation/errors';
import { openStore } from '../../composition/open-store.js';
import { loadConfig } from '../../config/load-config.js';
import {
  createUserService,
  generatedPassword,
  type User,
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

/** Who the audit trail names for changes made with this command on the database directly. */
const localActor = 'local-admin';

/** Runs `use` on the named user; an unknown name is one readable error (exit 3). */
function withUser<T>(
  dataDir: string | undefined,
  username: string,
  use: (users: UserService, user: User) => Promise<T>,
): Promise<T> {
  return withUsers(dataDir, async (service) => {
    const user = await service.userByName(username);
    if (!user) throw new NotFoundError('USER_NOT_FOUND', `user ${username} does not exist`);
    return use(service, user);
  });
}

function checkRole(role: string): asserts role is UserRole {
  if (!userRoles.includes(role as UserRole))
    throw new ValidationError('INVALID_ROLE', `--role must be one of ${userRoles.join(', ')}`);
}

export function registerUsersCommand(program: Command): void {
  const users = program
    .command('users')
    .description('manage dashboard users directly on the database (local admin)')
    .addHelpText(
      'after',
      examples(
        'setpoint users create --username ana --role editor',
        'echo "$PASSWORD" | setpoint users create --username ops --role viewer --password-stdin',
        'setpoint users list',
        'setpoint users set-role ana --role admin',
        'setpoint users disable ana',
        'setpoint users reset-password ana',
      ),
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
      checkRole(options.role);
      const password = options.passwordStdin ? await readStdin() : randomBytes(15).toString('base64url');
      const user = await withUsers(options.dataDir, (service) =>
        service.create(options.username, password, options.role as UserRole, localActor),
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
          list.map((user) => ({
            username: user.username,
            role: user.role,
            created_at: user.createdAt,
            disabled_at: user.disabledAt,
          })),
        );
      printTable(
        ['USERNAME', 'ROLE', 'STATUS', 'CREATED'],
        list.map((user) => [
          user.username,
          user.role,
          user.disabledAt === null ? 'active' : `disabled ${formatTime(user.disabledAt)}`,
          formatTime(user.createdAt),
        ]),
      );
    });

  for (const disabled of [true, false]) {
    const verb = disabled ? 'disable' : 'enable';
    users
      .command(verb)
      .description(
        disabled
          ? 'disable a user: they cannot sign in and their sessions end (never the last enabled admin)'
          : 'let a disabled user sign in again',
      )
      .argument('<username>', 'sign-in name')
      .addHelpText('after', examples(`setpoint users ${verb} ana`))
      .option('--data-dir <dir>', 'data directory (default ./.setpoint)')
      .action(async (username, options) => {
        await withUser(options.dataDir, username, (service, user) =>
          service.setDisabled(user.id, disabled, localActor),
        );
        process.stdout.write(`${disabled ? 'disabled' : 'enabled'} ${username}\n`);
      });
  }

  users
    .command('set-role')
    .description(`change a user's role (${userRoles.join(', ')}); their sessions end`)
    .argument('<username>', 'sign-in name')
    .requiredOption('--role <role>', `one of ${userRoles.join(', ')}`)
    .addHelpText('after', examples('setpoint users set-role ana --role admin'))
    .option('--data-dir <dir>', 'data directory (default ./.setpoint)')
    .action(async (username, options) => {
      checkRole(options.role);
      const role = options.role;
      const user = await withUser(options.dataDir, username, (service, found) =>
        service.changeRole(found.id, role, localActor),
      );
      process.stdout.write(`${username} is ${user.role}\n`);
    });

  users
    .command('reset-password')
    .description('set a new password (generated and printed once unless read from stdin); sessions end')
    .argument('<username>', 'sign-in name')
    .option('--password-stdin', 'read the new password from standard input')
    .addHelpText(
      'after',
      examples(
        'setpoint users reset-password ana',
        'echo "$PASSWORD" | setpoint users reset-password ana --password-stdin',
      ),
    )
    .option('--data-dir <dir>', 'data directory (default ./.setpoint)')
    .option('--json', 'print JSON')
    .action(async (username, options) => {
      const password = options.passwordStdin ? await readStdin() : generatedPassword();
      await withUser(options.dataDir, username, (service, user) =>
        service.resetPassword(user.id, password, localActor),
      );
      const shown = options.passwordStdin ? {} : { password };
      if (options.json) return printJson({ username, sessions_ended: true, ...shown });
      process.stdout.write(`reset the password of ${username}; their sessions ended\n`);
      if (!options.passwordStdin) process.stdout.write(`password (shown once): ${password}\n`);
    });

  users
    .command('delete')
    .description('delete a user (never the last enabled admin); the audit trail keeps what they did')
    .argument('<username>', 'sign-in name')
    .addHelpText('after', examples('setpoint users delete ana'))
    .option('--data-dir <dir>', 'data directory (default ./.setpoint)')
    .action(async (username, options) => {
      await withUser(options.dataDir, username, (service, user) => service.remove(user.id, localActor));
      process.stdout.write(`deleted ${username}\n`);
    });
}
