import { defaultProjectSettings } from '@setpoint/api-contract';
import { ConflictError } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../logging/logger.js';
import type { AuditEntry } from '../audit/audit-repository.js';
import type { Project } from '../projects/project-records.js';
import { createCodeHandoff, nothingToPropose } from './code-handoff.js';
import type { CodeProposal, ProjectSource } from './code-records.js';
import type { SourceView } from './source-service.js';

const linked = {
  projectId: 'prj_1',
  format: 'bundle',
  repository: '/srv/git/bundles.git',
  path: 'databricks.yml',
  apiWrites: false,
  origin: 'link',
} as ProjectSource;
const bundleNobodyLinked: SourceView = {
  source: null,
  declared: { deployedFrom: 'bundle', locked: true, sourceTag: null },
  tagProblem: null,
};
const proposal = {
  id: 'prop_1',
  url: 'https://github.example/acme/jobs/pull/7',
  branch: 'setpoint/prj_1',
} as CodeProposal;

type Propose = () => Promise<CodeProposal | null>;

function handoff(view: SourceView, options: { autoApply?: boolean; propose?: Propose } = {}) {
  const audited: AuditEntry[] = [];
  const proposed: string[] = [];
  const propose: Propose = options.propose ?? (async () => proposal);
  const code = createCodeHandoff({
    sourceOf: async () => view,
    projects: {
      get: async () =>
        ({ settings: { ...defaultProjectSettings(), autoApply: options.autoApply ?? true } }) as Project,
    },
    proposals: {
      propose: async (_projectId, { actor }) => {
        proposed.push(actor);
        return propose();
      },
      proposeAutomatically: async () => {
        proposed.push('auto');
        const made = await propose();
        return { proposal: made, reason: made ? 'proposed' : 'the code already holds the recommendation' };
      },
    },
    audit: { record: async (entry: AuditEntry) => void audited.push(entry) },
    logger: createLogger('silent'),
  });
  return { code, audited, proposed };
}

const person = { actor: 'ada', automatic: false };
const automatic = { actor: 'setpoint:auto-apply', automatic: true };

describe('createCodeHandoff', () => {
  it('leaves the change to the platform API when the job has no code Setpoint knows of', async () => {
    const { code, proposed, audited } = handoff({ source: null, declared: null, tagProblem: null });
    expect(await code.handOff('prj_1', 'rec_1', person)).toBeNull();
    expect(proposed).toEqual([]);
    expect(audited).toEqual([]);
  });

  it('leaves it to the API when the team lets Setpoint write the API too', async () => {
    const { code } = handoff({ source: { ...linked, apiWrites: true }, declared: null, tagProblem: null });
    expect(await code.handOff('prj_1', 'rec_1', person)).toBeNull();
  });

  it("proposes a person's apply in the linked code and says where", async () => {
    const { code, proposed } = handoff({ source: linked, declared: null, tagProblem: null });
    expect(await code.handOff('prj_1', 'rec_1', person)).toEqual({
      proposalId: 'prop_1',
      message: 'proposed: https://github.example/acme/jobs/pull/7',
    });
    expect(proposed).toEqual(['ada']);
  });

  it('says so when the code already holds the recommendation', async () => {
    const { code } = handoff(
      { source: linked, declared: null, tagProblem: null },
      { propose: async () => null },
    );
    expect(await code.handOff('prj_1', 'rec_1', person)).toEqual({
      proposalId: null,
      message: nothingToPropose,
    });
  });

  it("refuses a person's apply to a bundle-deployed job nobody linked, writing nothing", async () => {
    const { code, proposed } = handoff(bundleNobodyLinked);
    await expect(code.handOff('prj_1', 'rec_1', person)).rejects.toMatchObject({
      kind: 'conflict',
      code: 'DEPLOYED_FROM_CODE',
      message: expect.stringContaining('reverted by the next deploy'),
    });
    expect(proposed).toEqual([]);
  });

  it('audits an automatic change to such a job, and nothing when auto-apply is off', async () => {
    const on = handoff(bundleNobodyLinked);
    expect(await on.code.handOff('prj_1', 'rec_1', automatic)).toMatchObject({ proposalId: null });
    expect(on.audited).toMatchObject([{ action: 'apply-refused', entityId: 'prj_1' }]);
    const off = handoff(bundleNobodyLinked, { autoApply: false });
    expect(await off.code.handOff('prj_1', 'rec_1', automatic)).toMatchObject({ proposalId: null });
    expect(off.audited).toEqual([]);
  });

  it('answers a person whose proposal cannot be made with CONFIGURATION_IN_CODE naming the code', async () => {
    const { code } = handoff(
      { source: linked, declared: null, tagProblem: null },
      {
        propose: async () => {
          throw new ConflictError('EXPRESSION', 'num_workers is `max(var.floor, 6)` (jobs.tf:12)');
        },
      },
    );
    const refusal = await code.handOff('prj_1', 'rec_1', person).catch((error: unknown) => error);
    expect(refusal).toMatchObject({
      code: 'CONFIGURATION_IN_CODE',
      details: {
        source: { format: 'bundle', repository: '/srv/git/bundles.git', path: 'databricks.yml' },
        command: 'setpoint iac propose prj_1',
        proposal_error: 'num_workers is `max(var.floor, 6)` (jobs.tf:12)',
      },
    });
  });

  it('passes on a refusal about the request itself (a recommendation not ready)', async () => {
    const { code } = handoff(
      { source: linked, declared: null, tagProblem: null },
      {
        propose: async () => {
          throw new ConflictError('RECOMMENDATION_NOT_READY', 'recommendation rec_1 is PENDING');
        },
      },
    );
    await expect(code.handOff('prj_1', 'rec_1', person)).rejects.toMatchObject({
      code: 'RECOMMENDATION_NOT_READY',
    });
  });

  it('audits an automatic proposal that could not be made and leaves the job alone', async () => {
    const { code, audited } = handoff(
      { source: linked, declared: null, tagProblem: null },
      {
        propose: async () => {
          throw new Error('num_workers is `max(var.floor, 6)` (jobs.tf:12)');
        },
      },
    );
    expect(await code.handOff('prj_1', 'rec_1', automatic)).toMatchObject({ proposalId: null });
    expect(audited).toMatchObject([{ action: 'proposal-failed', actor: 'setpoint:auto-apply' }]);
    expect(String(audited[0]?.detail.reason)).toContain('num_workers is `max(var.floor, 6)` (jobs.tf:12)');
  });
});
