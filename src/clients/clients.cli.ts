import { Option, type Command } from 'commander';
import { wholeNumber, type CliDeps } from '../platform/cli.js';

/** `ownproof client create` and `ownproof key roll`: clients and their keys are managed from the shell. */
export function registerClientCommands(program: Command, cli: CliDeps): void {
  const client = program.command('client').description('Manage API clients');
  client
    .command('create')
    .description('Create a client with one test key and one live key (shown once)')
    .requiredOption('--name <name>', 'display name shown to account holders')
    .option('--json', 'print one JSON object {client_id, test_key, live_key}')
    .action(async (options: { name: string; json?: boolean }) => {
      if (options.name.trim() === '' || options.name.length > 200) cli.fail('--name must be 1 to 200 characters');
      const { createClient } = await import('./client.service.js');
      await cli.withRuntime(async (runtime) => {
        const created = await createClient(runtime.ctx, { name: options.name });
        if (options.json) {
          cli.print(JSON.stringify({ client_id: created.clientId, test_key: created.testKey, live_key: created.liveKey }));
        } else {
          cli.print(`Created client "${created.name}" (${created.clientId}).`);
          cli.print(`  test key: ${created.testKey}`);
          cli.print(`  live key: ${created.liveKey}`);
          cli.print('The keys are shown only now and stored as hashes.');
        }
      });
    });

  const key = program.command('key').description('Manage API keys');
  key
    .command('roll')
    .description('Issue a new key for a client and mode; the old keys stop working after the grace period')
    .requiredOption('--client <id>', 'client id (cli_...)')
    .addOption(new Option('--mode <mode>', 'which key to roll').choices(['test', 'live']).makeOptionMandatory())
    .option('--grace <seconds>', 'keep the old keys working this many seconds', wholeNumber('must be a whole number of seconds'), 0)
    .option('--json', 'print one JSON object {client_id, mode, key, old_keys_expire_at}')
    .action(async (options: { client: string; mode: 'test' | 'live'; grace: number; json?: boolean }) => {
      const { ClientNotFoundError, rollApiKey } = await import('./client.service.js');
      await cli
        .withRuntime(async (runtime) => {
          const rolled = await rollApiKey(runtime.ctx, { clientId: options.client, mode: options.mode, graceSeconds: options.grace });
          if (options.json) {
            cli.print(
              JSON.stringify({
                client_id: options.client,
                mode: options.mode,
                key: rolled.key,
                old_keys_expire_at: rolled.oldKeysExpireAt,
              }),
            );
          } else {
            cli.print(`New ${options.mode} key for ${options.client}: ${rolled.key}`);
            const when = options.grace === 0 ? 'now' : `at ${new Date(rolled.oldKeysExpireAt * 1000).toISOString()}`;
            if (rolled.expiringKeyHints.length > 0) cli.print(`Old key(s) ${rolled.expiringKeyHints.join(', ')} stop working ${when}.`);
          }
        })
        .catch((error: unknown) => {
          if (error instanceof ClientNotFoundError) cli.fail(`no client with id ${options.client}`);
          throw error;
        });
    });
}
