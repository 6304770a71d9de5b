import type { PlatformBilling } from '../../../cost/platform-billing.js';

/**
 * EMR bills a fee per instance-hour on top of EC2 and EBS, by instance type, on the AWS invoice; per second
 * with a one-minute minimum per instance.
 */
export const emrBilling: PlatformBilling = {
  platform: 'emr',
  nodeFees: [
    {
      fee: 'emr_fee',
      description: 'EMR fee',
      unit: 'instance-hour',
      billedBy: 'cloud',
      price: { list: 'emr-fee' },
    },
  ],
  minimumBilledHours: 1 / 60,
  unitCharges: [],
};
