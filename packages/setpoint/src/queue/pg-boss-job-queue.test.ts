import { describe, expect, it } from 'vitest';
import { isConnectionLoss } from './pg-boss-job-queue.js';

const withCode = (message: string, code: string) => Object.assign(new Error(message), { code });

describe('which pg-boss rejections are a lost connection (absorbed, the job runs again)', () => {
  it('recognises server termination, connection exceptions and dropped sockets', () => {
    expect(isConnectionLoss(withCode('terminating connection due to administrator command', '57P01'))).toBe(
      true,
    );
    expect(isConnectionLoss(withCode('the database system is shutting down', '57P03'))).toBe(true);
    expect(isConnectionLoss(withCode('connection failure', '08006'))).toBe(true);
    expect(isConnectionLoss(withCode('read ECONNRESET', 'ECONNRESET'))).toBe(true);
    expect(isConnectionLoss(new Error('Connection terminated unexpectedly'))).toBe(true);
  });

  it('leaves every other failure to end the process as before', () => {
    expect(isConnectionLoss(withCode('duplicate key value violates unique constraint', '23505'))).toBe(false);
    expect(isConnectionLoss(new TypeError('cannot read properties of undefined'))).toBe(false);
    expect(isConnectionLoss('57P01')).toBe(false);
  });
});
