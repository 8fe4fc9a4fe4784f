import { runDueJobs } from './connect.js';
import { FormAgent } from './form-agent.js';
import type { TestApp } from './test-app.js';

/**
 * Asks for a portal sign-in link on the sign-in page, as a person would, and runs the mail job.
 * Returns the path of the link mailed (to the development outbox), or undefined when none was.
 */
export async function askPortalLink(t: TestApp, email: string): Promise<string | undefined> {
  const agent = new FormAgent(t.app, 'portal');
  await agent.get('/portal/sign-in');
  const before = await t.ctx.db
    .selectFrom('mail_outbox')
    .select('seq')
    .where('kind', '=', 'portal_sign_in')
    .orderBy('seq', 'desc')
    .executeTakeFirst();
  await agent.post('/portal/sign-in', { email });
  await runDueJobs(t.ctx);
  const mail = await t.ctx.db
    .selectFrom('mail_outbox')
    .selectAll()
    .where('kind', '=', 'portal_sign_in')
    .where('seq', '>', before?.seq ?? 0)
    .orderBy('seq', 'desc')
    .executeTakeFirst();
  if (!mail) return undefined;
  if (mail.to_address.toLowerCase() !== email.toLowerCase()) throw new Error(`the link went to ${mail.to_address}, not ${email}`);
  return /\/portal\/sign-in\/pl_[0-9A-Za-z]+/.exec(mail.text_body)?.[0];
}

/** A browser signed in to the portal with a link asked for `email` (it must be mailed one). */
export async function signInToPortal(t: TestApp, email: string): Promise<FormAgent> {
  const link = await askPortalLink(t, email);
  if (!link) throw new Error(`no sign-in link was mailed to ${email}`);
  const agent = new FormAgent(t.app, 'portal');
  await agent.get(link);
  const signedIn = await agent.post(link);
  if (signedIn.statusCode !== 303) throw new Error(`sign-in: ${signedIn.statusCode}`);
  return agent;
}
