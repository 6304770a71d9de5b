import { describe, expect, it } from 'vitest';
import type { AuditEntry } from '../audit/audit-repository.js';
import type { RecommendationRecord } from '../recommendations/recommendation-records.js';
import type { AutoApplyDecision } from './auto-apply-policy.js';
import { leaveBadRunToLearning } from './learning-run-miss.js';

const learningRun = (run: number) =>
  ({ learning: { active: true, run } }) as RecommendationRecord['decision'];

function guardWith(decision: RecommendationRecord['decision'], autoApply: AutoApplyDecision) {
  const audited: AuditEntry[] = [];
  const deps = {
    recommendations: {
      get: async (projectId: string, id: string) => ({ id, projectId, decision }) as RecommendationRecord,
    },
    audit: {
      record: async (entry: AuditEntry) => {
        audited.push(entry);
      },
    },
  };
  const leave = (kind: string) =>
    leaveBadRunToLearning(deps, {
      projectId: 'prj_1',
      platform: 'emr',
      why: 'step s-1 failed on the new configuration',
      change: { kind, recommendationId: 'rec_1' },
      autoApply: async () => autoApply,
    });
  return { leave, audited };
}

const allowed = { apply: true, reason: 'auto-apply is on' };

describe('leaveBadRunToLearning', () => {
  it('leaves an auto-applied learning run after the first recommendation to learning, audited', async () => {
    const { leave, audited } = guardWith(learningRun(2), allowed);
    expect(await leave('auto-apply')).toBe(true);
    expect(audited).toEqual([
      expect.objectContaining({
        action: 'learning_run_missed',
        entityId: 'prj_1',
        detail: expect.objectContaining({
          platform: 'emr',
          recommendation_id: 'rec_1',
          reason: expect.stringMatching(
            /^step s-1 failed .*a learning run: the next recommendation moves on/,
          ),
        }),
      }),
    ]);
  });

  it('leaves the guard to revert everything else, without an audit entry of its own', async () => {
    const cases: Array<[RecommendationRecord['decision'], AutoApplyDecision, string]> = [
      // the first recommendation is held to a higher confidence: a bad run on it is a surprise
      [learningRun(1), allowed, 'auto-apply'],
      [{ learning: { active: false, run: 3 } } as RecommendationRecord['decision'], allowed, 'auto-apply'],
      [null, allowed, 'auto-apply'],
      // a person applied it
      [learningRun(2), allowed, 'apply'],
      // the next recommendation would not be written: the job would stay on the bad configuration
      [learningRun(2), { apply: false, reason: 'outside the optimization window' }, 'auto-apply'],
    ];
    for (const [decision, autoApply, kind] of cases) {
      const { leave, audited } = guardWith(decision, autoApply);
      expect(await leave(kind)).toBe(false);
      expect(audited).toEqual([]);
    }
  });
});
