import { describe, expect, it } from 'vitest';
import { createOneTimeSignIn } from './one-time-sign-in.js';

describe('one-time sign-in', () => {
  it('accepts the issued secret once and never again', () => {
    const signIn = createOneTimeSignIn();
    const secret = signIn.issue();

    expect(signIn.redeem('wrong')).toBe(false);
    expect(signIn.redeem(secret)).toBe(true);
    expect(signIn.redeem(secret)).toBe(false);
  });

  it('accepts nothing before a secret is issued, and only the newest after reissue', () => {
    const signIn = createOneTimeSignIn();
    expect(signIn.redeem('')).toBe(false);

    const first = signIn.issue();
    const second = signIn.issue();
    expect(signIn.redeem(first)).toBe(false);
    expect(signIn.redeem(second)).toBe(true);
  });
});
