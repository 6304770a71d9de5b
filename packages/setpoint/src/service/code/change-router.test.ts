import { defaultProjectSettings } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../logging/logger.js';
import type { AuditEntry } from '../audit/audit-repository.js';
import type { Project } from '../projects/project-records.js';
import { createChangeRouter } from './change-router.js';
import type { ProjectSource } from './code-records.js';
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

function router(view: SourceView, autoApply = true) {
  const audited: AuditEntry[] = [];
  const written: string[] = [];
  const routeChange = createChangeRouter({
    sourceOf: async () => view,
    projects: {
      get: async () => ({ settings: { ...defaultProjectSettings(), autoApply } }) as Project,
    },
    audit: { record: async (entry) => void audited.push(entry) },
    logger: createLogger('silent'),
  });
  const writes = (code: () => Promise<unknown> = async () => written.push('code')) => ({
    api: async () => void written.push('api'),
    code,
  });
  return { routeChange, audited, written, writes };
}

describe('createChangeRouter', () => {
  it('writes through the API when the job has no code Setpoint knows of', async () => {
    const { routeChange, written, audited, writes } = router({
      source: null,
      declared: null,
      tagProblem: null,
    });
    await routeChange('prj_1', writes(), { actor: 'ada', automatic: false });
    expect(written).toEqual(['api']);
    expect(audited).toEqual([]);
  });

  it('proposes in the code when it is linked', async () => {
    const { routeChange, written, writes } = router({ source: linked, declared: null, tagProblem: null });
    await routeChange('prj_1', writes(), { actor: 'ada', automatic: false });
    expect(written).toEqual(['code']);
  });

  it('writes nothing to a bundle-deployed job nobody linked, and audits why', async () => {
    const { routeChange, written, audited, writes } = router(bundleNobodyLinked);
    await routeChange('prj_1', writes(), { actor: 'ada', automatic: false });
    expect(written).toEqual([]);
    expect(audited).toMatchObject([{ action: 'apply-refused', actor: 'ada', entityId: 'prj_1' }]);
    expect(String(audited[0]?.detail.reason)).toContain('reverted by the next deploy');
  });

  it('audits nothing for a new recommendation when auto-apply is off (no write was asked for)', async () => {
    const { routeChange, written, audited, writes } = router(bundleNobodyLinked, false);
    await routeChange('prj_1', writes(), { actor: 'auto-apply', automatic: true });
    expect(written).toEqual([]);
    expect(audited).toEqual([]);
  });

  it('audits a proposal that could not be made and leaves the job alone', async () => {
    const { routeChange, written, audited, writes } = router({
      source: linked,
      declared: null,
      tagProblem: null,
    });
    const refused = writes(async () => {
      throw new Error('num_workers is `max(var.floor, 6)` (jobs.tf:12)');
    });
    await routeChange('prj_1', refused, { actor: 'auto-apply', automatic: true });
    expect(written).toEqual([]);
    expect(audited).toMatchObject([
      { action: 'proposal-failed', detail: { reason: 'num_workers is `max(var.floor, 6)` (jobs.tf:12)' } },
    ]);
  });
});
