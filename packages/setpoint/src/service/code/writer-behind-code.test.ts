import { defaultProjectSettings } from '@setpoint/api-contract';
import { describe, expect, it } from 'vitest';
import type { ApplyWriter } from '../apply/apply-writer.js';
import type { Project } from '../projects/project-records.js';
import type { ProjectSource } from './code-records.js';
import type { SourceView } from './source-service.js';
import { writerBehindCode } from './writer-behind-code.js';

const project: Project = {
  id: 'prj_1',
  name: 'orders',
  description: null,
  workspaceId: 'wsp_1',
  jobId: '42',
  clusterKey: 'job_cluster:etl',
  appId: null,
  settings: defaultProjectSettings(),
  phase: 'LEARNING',
  learningResetAt: null,
  createdAt: 0,
  updatedAt: 0,
};

const linked: ProjectSource = {
  projectId: 'prj_1',
  format: 'terraform',
  repository: 'https://github.com/acme/infra.git',
  path: 'jobs/orders.tf',
  branch: null,
  address: null,
  target: null,
  tfvars: null,
  forge: 'github',
  forgeApiUrl: 'https://api.github.com',
  tokenSet: true,
  apiWrites: false,
  origin: 'link',
  createdBy: 'admin',
  createdAt: 0,
  updatedAt: 0,
};

const nothingDeclared = { deployedFrom: null, locked: false, sourceTag: null } as const;

/** A platform writer that records whether it was asked where to write. */
function platformWriter() {
  const located: string[] = [];
  const writer: ApplyWriter<string> = {
    platform: 'test',
    defaultExportFormat: 'json',
    locate: async (at) => {
      located.push(at.id);
      return { target: `job ${at.jobId}`, description: `job ${at.jobId}` };
    },
    changedOutside: async () => null,
    planApply: async () => ({ configuration: {}, changes: [], undoes: null }),
    planUndo: async () => [],
    holds: async () => false,
    write: async () => undefined,
    export: async () => '',
    describe: (configuration) => ({ cluster: configuration, summary: '' }),
  };
  return { writer, located };
}

const behind = (view: SourceView) => {
  const platform = platformWriter();
  return { ...platform, guarded: writerBehindCode(platform.writer, async () => view) };
};

describe('writerBehindCode', () => {
  it('locates through the platform when the job has no code Setpoint knows of', async () => {
    const { guarded, located } = behind({ source: null, declared: nothingDeclared, tagProblem: null });
    expect(await guarded.locate(project)).toEqual({ target: 'job 42', description: 'job 42' });
    expect(located).toEqual(['prj_1']);
  });

  it('refuses a job whose code is linked, naming the file and the command that proposes there', async () => {
    const { guarded, located } = behind({ source: linked, declared: nothingDeclared, tagProblem: null });
    const { refusal } = await guarded.locate(project);
    expect(refusal).toMatchObject({ kind: 'conflict', code: 'CONFIGURATION_IN_CODE' });
    expect(refusal?.message).toContain('https://github.com/acme/infra.git//jobs/orders.tf');
    expect(refusal?.message).toContain('setpoint iac propose prj_1');
    expect(located).toEqual([]);
  });

  it('refuses a job the platform says a bundle deploys, when nobody linked its code', async () => {
    const { guarded, located } = behind({
      source: null,
      declared: { deployedFrom: 'bundle', locked: true, sourceTag: null },
      tagProblem: null,
    });
    const { refusal } = await guarded.locate(project);
    expect(refusal).toMatchObject({ code: 'DEPLOYED_FROM_CODE' });
    expect(refusal?.message).toContain('reverted by the next deploy');
    expect(located).toEqual([]);
  });

  it('refuses a job whose setpoint:source tag does not parse instead of writing behind it', async () => {
    const { guarded } = behind({
      source: null,
      declared: { ...nothingDeclared, sourceTag: 'jobs/orders.tf' },
      tagProblem: 'setpoint:source "jobs/orders.tf": not <repository>//<path>',
    });
    const { refusal } = await guarded.locate(project);
    expect(refusal).toMatchObject({ code: 'DEPLOYED_FROM_CODE' });
    expect(refusal?.message).toContain('setpoint:source "jobs/orders.tf"');
  });

  it('writes through the platform when the team lets Setpoint write the API too', async () => {
    const { guarded, located, writer } = behind({
      source: { ...linked, apiWrites: true },
      declared: { deployedFrom: 'bundle', locked: true, sourceTag: null },
      tagProblem: null,
    });
    expect((await guarded.locate(project)).target).toBe('job 42');
    expect(located).toEqual(['prj_1']);
    // everything but locate is the platform's own
    expect(guarded.planApply).toBe(writer.planApply);
    expect(guarded.platform).toBe('test');
  });
});
