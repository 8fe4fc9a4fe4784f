/**
 * The master key of test apps and the processes they start (hex, as MASTER_KEY takes it), and as
 * bytes. A module of its own so that child-process helpers need not load the service to know it.
 */
export const TEST_MASTER_KEY = '07'.repeat(32);
export const TEST_MASTER_KEY_BYTES = Buffer.from(TEST_MASTER_KEY, 'hex');
