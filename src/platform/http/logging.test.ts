import { describe, expect, it } from 'vitest';
import { redactSecrets } from './logging.js';

describe('secret redaction in logs', () => {
  it.each([
    ['/connect/cs_test_AbCdEf0123456789AbCdEf0123456789/providers', '/connect/cs_test_[redacted]/providers'],
    ['Bearer sk_live_AbCdEf0123456789AbCdEf0123456789', 'Bearer sk_live_[redacted]'],
    ['secret whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw+/sU=', 'secret whsec_[redacted]'],
    ['no secrets here: skate_test_1', 'no secrets here: skate_test_1'],
  ])('%s', (input, output) => {
    expect(redactSecrets(input)).toBe(output);
  });
});
