import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A sign-in link that works once: `setpoint demo` prints it, the first browser to open it is signed in. */
export interface OneTimeSignIn {
  /** A new secret for the link; any earlier one stops working. */
  issue(): string;
  /** True the first time the issued secret is presented, false ever after and for anything else. */
  redeem(secret: string): boolean;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

export function createOneTimeSignIn(): OneTimeSignIn {
  let pending: Buffer | undefined;
  return {
    issue() {
      const secret = randomBytes(18).toString('base64url');
      pending = digest(secret);
      return secret;
    },
    redeem(secret) {
      if (!pending || !timingSafeEqual(pending, digest(secret))) return false;
      pending = undefined;
      return true;
    },
  };
}
