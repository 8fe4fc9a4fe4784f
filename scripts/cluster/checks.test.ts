import { describe, expect, it } from 'vitest';
import { checkRun, type ClusterState, type LoadOutcome } from './checks.js';
import { template } from './load.js';

const webhook = (id: string) => ({ headers: {}, body: JSON.stringify({ id, type: 'statement.completed' }) });
const mailTo = (to: string) => ({ envelope: { from: 'ownproof@example.com', to: [to] }, raw: '' });

/** A run in which everything held: one statement, one access request, two events. */
function cleanRun(): { state: ClusterState; load: LoadOutcome } {
  return {
    state: {
      unfinishedJobs: [],
      subscribedEvents: [
        { id: 'evt_1', type: 'session.completed' },
        { id: 'evt_2', type: 'statement.completed' },
      ],
      statements: [{ id: 'vst_1', status: 'completed' }],
      pdfBillings: [{ resource_id: 'vst_1', count: 1 }],
      pdfDocuments: [{ statement_id: 'vst_1', format: 'monthly', count: 1 }],
      accessRequests: [{ id: 'var_1', email: 'Ada@example.com', notification_status: 'sent', notification_error: null }],
      statementCompletions: new Map([['vst_1', 1]]),
    },
    load: {
      statements: ['vst_1'],
      accessRequests: ['var_1'],
      serverErrors: 0,
      networkErrors: 0,
      laneErrors: [],
      webhooks: [webhook('evt_1'), webhook('evt_2'), webhook('evt_2')],
      mail: [mailTo('ada@example.com')],
    },
  };
}

const failing = (state: ClusterState, load: LoadOutcome) =>
  Object.fromEntries(
    checkRun(state, load)
      .filter((c) => c.failures.length > 0)
      .map((c) => [c.name, c.failures]),
  );

describe('the cluster checks', () => {
  it('pass a run in which everything held (an event delivered twice is at least once)', () => {
    const { state, load } = cleanRun();
    expect(failing(state, load)).toEqual({});
  });

  it('name what broke: a dead job, an event never delivered, a statement billed twice, a second PDF, a mail sent twice, a 5xx', () => {
    const { state, load } = cleanRun();
    state.unfinishedJobs.push({ id: 'job_1', type: 'mail.send', status: 'dead' });
    load.webhooks = [webhook('evt_1')];
    state.pdfBillings = [{ resource_id: 'vst_1', count: 2 }];
    state.pdfDocuments.push({ statement_id: 'vst_1', format: 'custom', count: 2 });
    load.mail.push(mailTo('ADA@example.com'));
    load.serverErrors = 1;
    expect(failing(state, load)).toEqual({
      'no job lost or dead': ['mail.send job_1 is dead'],
      'every subscribed event delivered at least once': ['statement.completed evt_2 never arrived'],
      'each downloaded statement billed exactly once, one PDF per format': ['vst_1 billed 2 times', 'vst_1 has 2 custom PDFs'],
      'each access request e-mailed exactly once, or not at all when answered before its mail went out': [
        'var_1: notification sent, 2 messages to its holder',
      ],
      'no 5xx answer and no connection failure': ['1 answers were 5xx'],
    });
  });

  it('fail a statement the load made that is missing, failed, completed twice or never billed', () => {
    const { state, load } = cleanRun();
    load.statements.push('vst_2', 'vst_3');
    state.statements.push({ id: 'vst_3', status: 'failed' });
    state.statementCompletions.set('vst_1', 2);
    state.pdfBillings = [];
    expect(failing(state, load)).toEqual({
      'every statement the load asked for completed': [
        'vst_2 is missing',
        'vst_3 is failed',
        'vst_1 completed 2 times (statement.completed events)',
        'vst_2 completed 0 times (statement.completed events)',
        'vst_3 completed 0 times (statement.completed events)',
      ],
      'each downloaded statement billed exactly once, one PDF per format': ['vst_1 billed 0 times'],
    });
  });
});

describe('the mail check', () => {
  it('takes a request answered before its mail went out, unmailed; not one mailed anyway, nor one whose mail failed', () => {
    const { state, load } = cleanRun();
    const answered = {
      id: 'var_2',
      email: 'bob@example.com',
      notification_status: 'failed',
      notification_error: 'not sent: the request was granted first',
    };
    const lost = { id: 'var_3', email: 'eve@example.com', notification_status: 'failed', notification_error: 'SMTP 421' };
    state.accessRequests.push(answered, { ...answered, id: 'var_4', email: 'carol@example.com' }, lost);
    load.accessRequests.push('var_2', 'var_4', 'var_3');
    load.mail.push(mailTo('carol@example.com'));
    expect(failing(state, load)).toEqual({
      'each access request e-mailed exactly once, or not at all when answered before its mail went out': [
        'var_4: notification failed (not sent: the request was granted first), 1 messages to its holder',
        'var_3: notification failed (SMTP 421), 0 messages to its holder',
      ],
    });
  });
});

describe('the route template of a request', () => {
  it('replaces ids, not the words of a path', () => {
    expect(template('/v1/connect/account_holders/ah_0123456789abcdefABCDEF')).toBe('/v1/connect/account_holders/{id}');
    expect(template('/v1/test_helpers/verify/access_requests/var_0123456789abcdefABCDEF/approve')).toBe(
      '/v1/test_helpers/verify/access_requests/{id}/approve',
    );
  });
});
