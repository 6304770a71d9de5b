import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkArchitecture, importsOf } from '../../scripts/architecture/check-architecture.js';

const root = path.resolve('.');
const document = readFileSync(path.join(root, 'docs/ARCHITECTURE.md'), 'utf8');
const problemsWith = (overlay: Record<string, string>, doc = document) =>
  checkArchitecture({ root, document: doc, overlay }).problems;

describe('the dependency rules of docs/ARCHITECTURE.md', () => {
  it('hold for the tree, and the table matches it', () => {
    expect(checkArchitecture({ root }).problems).toEqual([]);
  });

  it('reject an import the table does not allow: the store may not import the server', () => {
    const problems = problemsWith({
      'packages/setpoint/src/store/probe.ts':
        "import { buildApp } from '../server/build-app.js';\nexport const probe = buildApp;\n",
    });
    expect(problems).toEqual([
      expect.stringMatching(
        /^packages\/setpoint\/src\/store\/probe\.ts:1: setpoint\/store must not import setpoint\/server/,
      ),
    ]);
  });

  it('reject the platform from the core, and through a package specifier too', () => {
    const problems = problemsWith({
      'packages/setpoint/src/service/probe.ts':
        "import { databricksPlatform } from '../platforms/databricks/databricks-platform.js';\nexport const probe = databricksPlatform;\n",
      'packages/setpoint/src/pipeline/probe.ts':
        "import type { AwsAttributes } from '@setpoint/api-contract/databricks';\nexport type Probe = AwsAttributes;\n",
    });
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toContain('setpoint/service must not import setpoint/platforms/databricks');
    expect(problems.join('\n')).toContain('setpoint/pipeline must not import api-contract/databricks');
  });

  it('reject a value import where only types are allowed, and a static import of the emulator', () => {
    const problems = problemsWith({
      'packages/setpoint/src/queue/probe.ts':
        "import { newId } from '../store/ids.js';\nexport const probe = newId;\n",
      'packages/setpoint/src/demo/probe.ts':
        "import { startEmulator } from '@setpoint/databricks-emulator';\nexport const probe = startEmulator;\n",
    });
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toContain('setpoint/queue may import setpoint/store only (types)');
    expect(problems.join('\n')).toContain('setpoint/demo must not import databricks-emulator');
  });

  it("reject a candidate's name read as text, and an allowance no file uses", () => {
    const problems = problemsWith({
      'packages/setpoint/src/optimizer/probe.ts':
        "import type { Candidate } from './types.js';\nexport const probe = (candidate: Candidate) => candidate.instanceType.startsWith('photon-');\n",
      'packages/setpoint/src/service/recommendations/probe.ts':
        'export const probe = (candidateId: string) => /\\|spot/.test(candidateId);\n',
    });
    expect(problems).toEqual([
      expect.stringMatching(
        /^packages\/setpoint\/src\/optimizer\/probe\.ts:2: reads a candidate's name as text \(candidate\.instanceType\.startsWith\)/,
      ),
      expect.stringMatching(
        /^packages\/setpoint\/src\/service\/recommendations\/probe\.ts:1: reads a candidate's name as text \(\/\\\|spot\/\.test\)/,
      ),
    ]);

    const stale = document.replace(
      '<!-- candidate-names:end -->',
      '| `packages/setpoint/src/optimizer/recommend.ts` | a probe |\n<!-- candidate-names:end -->',
    );
    expect(problemsWith({}, stale)).toEqual([
      expect.stringContaining(
        "`packages/setpoint/src/optimizer/recommend.ts` may read a candidate's name but does not",
      ),
    ]);
  });

  it('reject a query built outside a repository', () => {
    const problems = problemsWith({
      'packages/setpoint/src/service/runs/probe.ts':
        "import type { Kysely } from 'kysely';\nexport const probe = (db: Kysely<{ runs: { id: string } }>) => db.selectFrom('runs').selectAll().execute();\n",
    });
    expect(problems).toEqual([expect.stringContaining('service/runs/probe.ts: builds SQL queries')]);
  });

  it('reject a row type outside a repository', () => {
    const problems = problemsWith({
      'packages/setpoint/src/pipeline/probe.ts':
        "import type { RunsTable } from '../store/database-schema.js';\nexport const probe = (row: RunsTable) => row.id;\n",
      'packages/setpoint/src/service/runs/probe.ts':
        "import type { Selectable } from 'kysely';\nexport type Probe = Selectable<{ id: string }>;\n",
    });
    expect(problems).toEqual([
      expect.stringContaining('pipeline/probe.ts: imports a row type'),
      expect.stringContaining('service/runs/probe.ts: imports a row type'),
    ]);

    const staleAllowance = document.replace(
      '<!-- row-types:end -->',
      '| `packages/setpoint/src/store/ids.ts` | a file that maps no row |\n<!-- row-types:end -->',
    );
    expect(problemsWith({}, staleAllowance)).toEqual([
      expect.stringContaining('`packages/setpoint/src/store/ids.ts` may import a row type but does not'),
    ]);
  });

  it('reject a platform reached through its plugin rather than its runtime', () => {
    const problems = problemsWith({
      'packages/setpoint/src/pipeline/probe.ts':
        "import type { PlatformPlugin } from '../platform-api/platform.js';\nexport const probe = (plugin: PlatformPlugin) => plugin.name;\n",
      'packages/setpoint/src/server/routes/probe.ts':
        "import type { PlatformRegistry } from '../../platform-api/platform-registry.js';\nexport type Probe = PlatformRegistry;\n",
      'packages/setpoint/src/pipeline/runtime-probe.ts':
        "import type { PlatformRuntime } from '../platform-api/platform.js';\nexport const probe = (runtime: PlatformRuntime) => runtime.runs;\n",
    });
    expect(problems).toEqual([
      expect.stringContaining(
        'pipeline/probe.ts: imports PlatformPlugin: the core reaches a platform through one door',
      ),
      expect.stringContaining('server/routes/probe.ts: imports PlatformRegistry'),
    ]);
  });

  it('reject a file in no module, a cycle between subfolders, and a stale row', () => {
    expect(problemsWith({ 'packages/setpoint/src/misc/probe.ts': 'export const probe = 1;\n' })).toEqual([
      expect.stringContaining('packages/setpoint/src/misc/probe.ts: belongs to no module'),
    ]);

    const cycle = problemsWith({
      'packages/setpoint/src/service/audit/probe.ts':
        "import type { Run } from '../runs/run-records.js';\nexport type Probe = Run;\n",
      'packages/setpoint/src/service/runs/probe.ts':
        "import type { AuditEntry } from '../audit/audit-repository.js';\nexport type Probe = AuditEntry;\n",
    });
    expect(cycle.join('\n')).toMatch(/setpoint\/service: its folders import each other in a cycle/);

    const stale = document.replace(
      '| `setpoint/store` (types) |',
      '| `setpoint/store` (types), `setpoint/security` |',
    );
    expect(problemsWith({}, stale)).toEqual([
      expect.stringContaining('`setpoint/queue` may import `setpoint/security` but does not'),
    ]);
  });

  it('reject a table whose allowed edges form a cycle', () => {
    const cyclic = document.replace(
      '| `setpoint/config` | the one zod schema for all settings (env, file, flags) | `foundation` |',
      '| `setpoint/config` | the one zod schema for all settings (env, file, flags) | `foundation`, `setpoint/cli` |',
    );
    expect(cyclic).not.toBe(document);
    expect(problemsWith({}, cyclic).join('\n')).toMatch(
      /the allowed dependencies form a cycle: .*setpoint\/config/,
    );
  });

  it('tells type, value and dynamic imports apart', () => {
    const edges = importsOf(
      'probe.ts',
      [
        "import type { A } from './a.js';",
        "import { type B, type C } from './b.js';",
        "import { d, type E } from './d.js';",
        "export type { F } from './f.js';",
        "const g = () => import('./g.js');",
        "type H = typeof import('./h.js');",
      ].join('\n'),
    );
    expect(edges.map((edge) => `${edge.specifier} ${edge.kind}`)).toEqual([
      './a.js type',
      './b.js type',
      './d.js value',
      './f.js type',
      './g.js dynamic',
      './h.js type',
    ]);
  });

  it('reject two files that import each other, even through a type, and an allowed cycle that is gone', () => {
    const problems = problemsWith({
      'packages/setpoint/src/service/projects/probe-a.ts':
        "import type { B } from './probe-b.js';\nexport interface A { b: B }\n",
      'packages/setpoint/src/service/projects/probe-b.ts':
        "import type { A } from './probe-a.js';\nexport interface B { a?: A }\n",
    });
    expect(problems).toEqual([
      expect.stringContaining(
        'import each other in a cycle (type-only and dynamic imports count): packages/setpoint/src/service/projects/probe-a.ts → packages/setpoint/src/service/projects/probe-b.ts',
      ),
    ]);

    const staleCycle = document.replace(
      '<!-- file-cycles:end -->',
      '| `packages/setpoint/src/store/ids.ts`, `packages/setpoint/src/store/dialect.ts` | a cycle the tree does not have |\n<!-- file-cycles:end -->',
    );
    expect(problemsWith({}, staleCycle)).toEqual([
      expect.stringContaining('the allowed file cycle `packages/setpoint/src/store/ids.ts`'),
    ]);
  });

  it('reject a platform name as a value in the core, not in words for people, and an allowance that is not needed', () => {
    const problems = problemsWith({
      'packages/setpoint/src/pipeline/probe.ts': [
        "export const kind = 'emr.collect';",
        "export const isDatabricks = (platform: string) => platform === 'databricks';",
        "export const help = 'connect a Databricks workspace or an EMR account';",
      ].join('\n'),
    });
    expect(problems).toEqual([
      expect.stringMatching(
        /^packages\/setpoint\/src\/pipeline\/probe\.ts:1: names the platform emr as a value \('emr\.collect'\)/,
      ),
      expect.stringMatching(
        /^packages\/setpoint\/src\/pipeline\/probe\.ts:2: names the platform databricks as a value/,
      ),
    ]);

    const needless = document.replace(
      '<!-- platform-names:end -->',
      '| `packages/setpoint/src/queue/` | a probe |\n<!-- platform-names:end -->',
    );
    expect(problemsWith({}, needless)).toEqual([
      expect.stringContaining('`packages/setpoint/src/queue/` may name a platform but does not'),
    ]);
  });

  it('reject a platform named anywhere in the connection lifecycle, words and identifiers too, and a row with no file', () => {
    const probe = [
      "export const help = 'connect a Databricks workspace';",
      '// signs in as EMR does',
      'export const isEmrAccount = (name: string) => name.length > 0;',
      "export const neutral = 'connect an account';",
    ].join('\n');
    const problems = problemsWith({ 'packages/setpoint/src/service/connections/probe.ts': probe });
    expect(problems).toEqual([
      expect.stringMatching(
        /^packages\/setpoint\/src\/service\/connections\/probe\.ts:1: names the platform databricks .*platform-neutral/,
      ),
      expect.stringMatching(
        /^packages\/setpoint\/src\/service\/connections\/probe\.ts:2: names the platform emr/,
      ),
      expect.stringMatching(
        /^packages\/setpoint\/src\/service\/connections\/probe\.ts:3: names the platform emr/,
      ),
    ]);
    // the same words elsewhere in the core are words for people, which the core may say
    expect(problemsWith({ 'packages/setpoint/src/service/projects/probe.ts': probe })).toEqual([]);

    const stale = document.replace(
      '<!-- platform-neutral:end -->',
      '| `packages/setpoint/src/service/nowhere/` | a probe |\n<!-- platform-neutral:end -->',
    );
    expect(problemsWith({}, stale)).toEqual([
      expect.stringContaining('platform-neutral `packages/setpoint/src/service/nowhere/` has no source file'),
    ]);
  });

  it("reject an import of the product's internals from another package or a script, and exports that differ from the document", () => {
    const problems = problemsWith({
      'scripts/bench/probe.ts': "import { newId } from 'setpoint/store/ids';\nexport const probe = newId;\n",
      'packages/bench/src/probe.ts':
        "import type { Dialect } from 'setpoint/store/dialect';\nexport type Probe = Dialect;\n",
    });
    // the bench's row does not allow the store either; a script has no row, only the exports to obey
    expect(problems).toEqual([
      expect.stringMatching(
        /^packages\/bench\/src\/probe\.ts:1: imports setpoint\/store\/dialect, which the product does not export/,
      ),
      expect.stringMatching(/^packages\/bench\/src\/probe\.ts:1: bench must not import setpoint\/store/),
      expect.stringMatching(
        /^scripts\/bench\/probe\.ts:1: imports setpoint\/store\/ids, which the product does not export/,
      ),
    ]);

    const manifest = JSON.parse(readFileSync(path.join(root, 'packages/setpoint/package.json'), 'utf8'));
    manifest.exports['./store/*'] = manifest.exports['./optimizer/*'];
    expect(problemsWith({ 'packages/setpoint/package.json': JSON.stringify(manifest) })).toEqual([
      expect.stringContaining('packages/setpoint/package.json: "exports" must be the public modules'),
    ]);

    const unused = document.replace(
      '<!-- public-exports:end -->',
      '| `setpoint/security` | nobody |\n<!-- public-exports:end -->',
    );
    expect(problemsWith({}, unused).join('\n')).toContain(
      'the product exports `setpoint/security` but no other package or script imports it',
    );
  });
});
