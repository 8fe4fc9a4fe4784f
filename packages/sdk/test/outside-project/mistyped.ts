// The same SDK, used wrongly: every line below is a type error that `tsc --strict` must report.
import { Ownproof } from '@ownproof/sdk';

const ownproof = new Ownproof({ apiKey: 'sk_test_x', baseUrl: 'http://127.0.0.1:8080' });
// 'balance' is no permission ('balances' is).
await ownproof.connect.sessions.create({ account_holder: 'ah_1', permissions: ['balance'] });
const holder = await ownproof.connect.accountHolders.retrieve('ah_1');
// An account holder has no `accounts` field.
console.log(holder.accounts);
