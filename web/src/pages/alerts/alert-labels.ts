import { type AlertRuleResource, retryableNotificationStatuses } from '@setpoint/api-contract';

/** Every event a rule can watch, as the dashboard names it (a Record, so a new event is noticed). */
export const eventLabels: Record<AlertRuleResource['event'], string> = {
  sla_missed: 'SLA missed',
  sla_at_risk: 'SLA at risk',
  cost_spike: 'Cost spike',
  external_change: 'Changed outside Setpoint',
  apply_failed: 'Apply failed',
  collection_parked: 'Collection parked',
  learning_finished: 'Learning finished',
  approval_needed: 'Approval needed',
};

export const statusLabels: Record<string, string> = {
  SENDING: 'Sending',
  SENT: 'Sent',
  RETRYING: 'Retrying',
  PARKED: 'Parked (gave up)',
  FAILED: 'Failed',
  RATE_LIMITED: 'Held back (hourly limit)',
};

/** Notifications an admin may send again: those Setpoint gave up on. */
export const retryableStatuses: ReadonlySet<string> = new Set(retryableNotificationStatuses);
