import { z } from 'zod';

/**
 * Scripted outages, in the spirit of the fault rules Databricks' own test server uses: each rule matches a
 * pattern, lets `offset` matches pass, then applies to the next `count` matches (all of them if unset).
 */
export const faultRuleSchema = z.object({
  kind: z.enum([
    'http',
    'drop-webhook',
    'log-delay',
    'truncate-eventlog',
    'missing-eventlog',
    'node-capacity',
  ]),
  /**
   * http: `"METHOD /path*"` or `"/path*"` (`*` matches anything; the version segment may be `2.*`).
   * drop-webhook: an event type such as `jobs.on_success` (glob). Log faults: a job name (glob).
   * node-capacity: a worker node type (glob) the cloud has no capacity for: a job cluster that lists
   * alternates for it (`worker_node_type_flexibility.alternate_node_type_ids`) launches its workers on the
   * first alternate instead, as Databricks' flexible node types do; one without alternates is not affected.
   */
  match: z.string().default('*'),
  offset: z.number().int().nonnegative().default(0),
  count: z.number().int().positive().optional(),
  /** http: status to answer with (429, 500, 503 …); omit for a slow but otherwise normal response. */
  status: z.number().int().min(400).max(599).optional(),
  retryAfterSeconds: z.number().int().nonnegative().optional(),
  /** http: delay before answering, real milliseconds (with `afterHandler`, after the state changed). */
  delayMs: z.number().int().nonnegative().optional(),
  /**
   * http: run the handler (keep its state change) and then replace the response (a lost response) or, with
   * `delayMs` and no status, answer late.
   */
  afterHandler: z.boolean().default(false),
  /** log-delay: extra simulated seconds before logs are delivered. */
  extraDelaySeconds: z.number().nonnegative().optional(),
});

export const faultRulesSchema = z.array(faultRuleSchema);

export type FaultRuleInput = z.input<typeof faultRuleSchema>;
export type FaultRule = z.infer<typeof faultRuleSchema>;

export interface ActiveFault extends FaultRule {
  id: number;
  seen: number;
  applied: number;
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*');
  return new RegExp(`^${escaped}$`, 'i');
}

export class FaultInjector {
  private rules: ActiveFault[] = [];
  private nextId = 1;

  add(input: FaultRuleInput): ActiveFault {
    const rule: ActiveFault = { ...faultRuleSchema.parse(input), id: this.nextId, seen: 0, applied: 0 };
    this.nextId += 1;
    this.rules.push(rule);
    return rule;
  }

  list(): ActiveFault[] {
    return [...this.rules];
  }

  clear(): void {
    this.rules = [];
  }

  remove(id: number): boolean {
    const before = this.rules.length;
    this.rules = this.rules.filter((rule) => rule.id !== id);
    return this.rules.length !== before;
  }

  /** Counts the match against every rule of that kind and returns the first rule that fires. */
  take(kind: FaultRule['kind'], subject: string, method?: string): ActiveFault | undefined {
    let fired: ActiveFault | undefined;
    for (const rule of this.rules) {
      if (rule.kind !== kind || !matches(rule.match, subject, method)) continue;
      rule.seen += 1;
      if (fired || rule.seen <= rule.offset) continue;
      if (rule.count !== undefined && rule.applied >= rule.count) continue;
      rule.applied += 1;
      fired = rule;
    }
    return fired;
  }
}

function matches(pattern: string, subject: string, method?: string): boolean {
  const space = pattern.indexOf(' ');
  if (space > 0 && method !== undefined) {
    const wantedMethod = pattern.slice(0, space);
    if (wantedMethod !== '*' && wantedMethod.toUpperCase() !== method.toUpperCase()) return false;
    return globToRegExp(pattern.slice(space + 1)).test(subject);
  }
  return globToRegExp(pattern).test(subject);
}
