import type { Command } from 'commander';
import { commandGroup, type CliDeps } from '../cli.js';

/** What the key commands run, loaded when one runs. */
const loadKeyRotation = async () => {
  const [clock, dataKeys, masterKeys] = await Promise.all([
    import('../clock.js'),
    import('./data-key.service.js'),
    import('./master-key.js'),
  ]);
  return { ...clock, ...dataKeys, ...masterKeys };
};

/**
 * `ownproof keys rotate-master` and `ownproof keys rotate-data`: the keys that encrypt secrets at
 * rest. Output names keys by id only, never a key (docs/architecture.md, "Secrets at rest").
 */
export function registerKeyCommands(program: Command, cli: CliDeps): void {
  const keys = commandGroup(program, 'keys', 'Rotate and list keys');

  keys
    .command('rotate-master')
    .description(
      'Re-wrap every data key under MASTER_KEY (the new master key), unwrapping with MASTER_KEY_PREVIOUS (the old one); no secret is rewritten',
    )
    .option('--json', 'print one JSON object {master_key_id, previous_master_key_id, rewrapped, unchanged, legacy_key}')
    .action(async (options: { json?: boolean }) => {
      const { rotateMasterKey, resolveMasterKeys, unixSeconds } = await loadKeyRotation();
      await cli.withRuntime(async (runtime) => {
        const { config } = runtime.ctx;
        // The development key file is never the new key: a rotation names both keys explicitly.
        if (!config.masterKey)
          cli.fail('keys rotate-master takes the new master key from MASTER_KEY and the old one from MASTER_KEY_PREVIOUS: set both');
        if (config.previousMasterKey?.equals(config.masterKey))
          cli.fail('MASTER_KEY_PREVIOUS is the same key as MASTER_KEY: MASTER_KEY must be the new key');
        const rotation = await rotateMasterKey(runtime.database, resolveMasterKeys(config), unixSeconds(runtime.ctx.clock));
        if (options.json) {
          cli.print(
            JSON.stringify({
              master_key_id: rotation.masterKeyId,
              previous_master_key_id: rotation.previousMasterKeyId ?? null,
              rewrapped: rotation.rewrapped,
              unchanged: rotation.unchanged,
              legacy_key: rotation.legacyKey ?? null,
            }),
          );
          return;
        }
        const from = rotation.previousMasterKeyId ? ` (from ${rotation.previousMasterKeyId})` : '';
        cli.print(
          `Re-wrapped ${rotation.rewrapped.length} data key(s) under master key ${rotation.masterKeyId}${from}; ${rotation.unchanged.length} already were.`,
        );
        if (rotation.legacyKey) {
          cli.print(
            `Kept master key ${rotation.previousMasterKeyId} as data key ${rotation.legacyKey}: secrets sealed before envelope encryption stay readable.`,
          );
        }
        cli.print(
          `Every data key is wrapped by master key ${rotation.masterKeyId}. Running processes keep working; restart them with the new MASTER_KEY and without MASTER_KEY_PREVIOUS, then destroy the old key.`,
        );
      });
    });

  keys
    .command('rotate-data')
    .description('Start sealing new secrets with a new data key; older data keys keep opening what they sealed')
    .option('--json', 'print one JSON object {active, retired, next}')
    .action(async (options: { json?: boolean }) => {
      const { masterKeyId, rotateDataKey, resolveMasterKeys, unixSeconds } = await loadKeyRotation();
      await cli.withRuntime(async (runtime) => {
        const master = resolveMasterKeys(runtime.ctx.config).current;
        const rotation = await rotateDataKey(runtime.database, master, unixSeconds(runtime.ctx.clock));
        if (options.json) {
          cli.print(JSON.stringify({ active: rotation.active, retired: rotation.retired ?? null, next: rotation.next }));
          return;
        }
        cli.print(
          `Data key ${rotation.active} seals new secrets${rotation.retired ? `; ${rotation.retired} is retired and still opens what it sealed` : ''}.`,
        );
        cli.print(
          `Next data key ${rotation.next} is ready (wrapped by master key ${masterKeyId(master)}). Running processes already hold ${rotation.active} and switch to sealing with it when restarted; restart them before the next rotate-data.`,
        );
      });
    });
}
