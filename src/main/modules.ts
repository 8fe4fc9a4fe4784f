import { bitcoinModule } from '../bitcoin/bitcoin.module.js';
import { clientsModule } from '../clients/clients.module.js';
import { connectModule } from '../connect/connect.module.js';
import type { AppModule } from '../platform/module.js';
import { composeService } from '../platform/service.js';
import { pricesModule } from '../prices/prices.module.js';
import { verifyModule } from '../verify/verify.module.js';

/**
 * The composition root: every domain module, once, in the order their context parts are built
 * (a module may use the parts of those before it). Adding a domain is one line here.
 */
export const DOMAIN_MODULES: readonly AppModule[] = [clientsModule, bitcoinModule, connectModule, pricesModule, verifyModule];

/** The service the server, the worker, the CLI and the test app are assembled from. */
export const service = composeService(DOMAIN_MODULES);
