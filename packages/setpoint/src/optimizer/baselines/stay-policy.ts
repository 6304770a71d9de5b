import type { SearchPolicyFactory } from '../search-policy.js';

/** Never changes the configuration: what a job costs without an optimizer. */
export const stayPolicy: SearchPolicyFactory = (context) => ({
  next: () => ({ candidateId: context.coldStartId }),
});
