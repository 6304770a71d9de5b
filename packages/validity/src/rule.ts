/**
 * One thing a platform refuses, as its own documentation states it. Rules are data: the same list checks a
 * candidate cluster, a request before Setpoint sends it, and a request the emulator receives, and the
 * documentation lists them with their sources.
 */
export interface ValidityRule<Subject, Facts> {
  /** Stable, kebab-case: what an explanation, an error and the docs name ("autoscale-bounds"). */
  name: string;
  /** What the platform requires, in one sentence. */
  requirement: string;
  /** Where the platform says so: the API reference field or page, quoted where it is short. */
  source: string;
  /**
   * `request`: the API answers 400 and changes nothing; `launch`: the request is accepted and the cluster
   * the job next starts fails to launch (the run fails before any task).
   */
  refusedAt: RefusedAt;
  /** Where `subject` breaks the rule (none: an empty list). */
  check(subject: Subject, facts: Facts): Finding[];
}

export type RefusedAt = 'request' | 'launch';

/** Where a rule is broken and the platform-style sentence saying so. */
export interface Finding {
  /** The path of the offending field in the request ("autoscale.max_workers", "InstanceGroups[1].InstanceCount"). */
  field: string;
  message: string;
}

/** A broken rule: a finding with the rule's name and when the platform refuses it. */
export interface Violation extends Finding {
  rule: string;
  refusedAt: RefusedAt;
}

/** Every violation of every rule, in the rules' order. */
export function violationsOf<Subject, Facts>(
  rules: readonly ValidityRule<Subject, Facts>[],
  subject: Subject,
  facts: Facts,
): Violation[] {
  return rules.flatMap((rule) =>
    rule.check(subject, facts).map((finding) => ({ ...finding, rule: rule.name, refusedAt: rule.refusedAt })),
  );
}

/** A rule without its check: what the docs and an error list. */
export type RuleDescription = Pick<
  ValidityRule<unknown, unknown>,
  'name' | 'requirement' | 'source' | 'refusedAt'
>;

export function describeRules<Subject, Facts>(
  rules: readonly ValidityRule<Subject, Facts>[],
): RuleDescription[] {
  return rules.map(({ name, requirement, source, refusedAt }) => ({ name, requirement, source, refusedAt }));
}

/** "autoscale-bounds: autoscale.max_workers (1) must be …": one line naming the rule. */
export function describeViolation(violation: Violation): string {
  return `${violation.rule}: ${violation.message}`;
}
