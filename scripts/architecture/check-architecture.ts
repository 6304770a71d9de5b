/**
 * Checks the tree against the dependency rules in docs/ARCHITECTURE.md:
 *  - every import between modules is an edge the module table allows (or an exception row allows, for the
 *    files it names), with the kind it allows (`(types)`: type-only; `(dynamic)`: `import()` or types);
 *  - the allowed module graph has no cycle, and the subfolders of each module import each other without
 *    cycles;
 *  - platform modules (those that name a platform) are imported only by other platform modules and by the
 *    places the exception table names;
 *  - the table matches the tree: every source file belongs to a module row, every row and allowed edge is
 *    used, every exception is used;
 *  - the Kysely query builder is used only in `*-repository.ts` files and the store's own files;
 *  - no files import each other in a cycle, through any kind of import, but the cycles the document still
 *    lists (`file-cycles.ts`);
 *  - the core names no platform as a value (`platform-names.ts`): outside the platform modules, the files of
 *    the exception table and the allow-list of the document;
 *  - other packages and the scripts import only the product's public modules, which its package.json
 *    exports (`public-exports.ts`);
 *  - no candidate's instance type or id is read as text (`candidate-names.ts`): candidates are facts, and
 *    the one reader of a configuration's name is the translation the document names.
 *
 * `npm run lint` runs it (`tsx scripts/architecture/check-architecture.ts`); tests/quality/architecture.test.ts
 * runs it over the tree and over trees with a forbidden import, to prove the rules bite.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { candidateNameReadsIn } from './candidate-names.js';
import { type AllowedCycle, fileCycleProblems } from './file-cycles.js';
import { platformNamesIn, platformWordsIn } from './platform-names.js';
import { productExportsProblems, productPackage } from './public-exports.js';

export type ImportKind = 'type' | 'dynamic' | 'value';

export interface ImportEdge {
  file: string;
  specifier: string;
  kind: ImportKind;
  line: number;
}

/** `(types)`: only type imports; `(dynamic)`: `import()` and type imports; `all`: any import. */
type Allowance = 'types' | 'dynamic' | 'all';

interface ModuleRow {
  name: string;
  /** Repository-relative path of the module (a folder or a file without its extension). */
  location: string;
  allows: Map<string, Allowance>;
}

interface ExceptionRow {
  /** Repository-relative path of a file or folder, as written in the table. */
  location: string;
  allows: Map<string, Allowance>;
  why: string;
}

export interface Rules {
  modules: ModuleRow[];
  exceptions: ExceptionRow[];
  /** Modules that name a platform: only exception rows (and other platform modules) may import them. */
  platformModules: Set<string>;
  /** File cycles still allowed, each with why. */
  allowedFileCycles: AllowedCycle[];
  /** Files and folders outside the platform modules that may still name a platform as a value, with why. */
  platformNameAllowances: Array<{ location: string; why: string }>;
  /** Files that may still read a candidate's instance type or id as text, with why. */
  candidateNameAllowances: Array<{ location: string; why: string }>;
  /** Files outside repositories that may still import a row type, with why. */
  rowTypeAllowances: Array<{ location: string; why: string }>;
  /** Modules of the product that other packages and the scripts may import. */
  publicModules: string[];
  /** Files and folders that name no platform at all (the connection lifecycle), with what they hold. */
  platformNeutral: Array<{ location: string; why: string }>;
}

export interface CheckOptions {
  root: string;
  /** The architecture document's text (default: `<root>/docs/ARCHITECTURE.md`). */
  document?: string;
  /** Extra or replaced files, repository-relative path → content: how the tests plant a forbidden import. */
  overlay?: Record<string, string>;
}

export interface CheckResult {
  problems: string[];
  /** Module → modules it imports (test files excluded), for the document's table. */
  edges: Map<string, Map<string, Set<ImportKind>>>;
}

const tableStart = '<!-- dependency-table:start -->';
const tableEnd = '<!-- dependency-table:end -->';
const exceptionsStart = '<!-- dependency-exceptions:start -->';
const exceptionsEnd = '<!-- dependency-exceptions:end -->';
const platformStart = '<!-- platform-modules:start -->';
const platformEnd = '<!-- platform-modules:end -->';
const fileCyclesStart = '<!-- file-cycles:start -->';
const fileCyclesEnd = '<!-- file-cycles:end -->';
const rowTypesStart = '<!-- row-types:start -->';
const rowTypesEnd = '<!-- row-types:end -->';
const candidateNamesStart = '<!-- candidate-names:start -->';
const candidateNamesEnd = '<!-- candidate-names:end -->';
const platformNamesStart = '<!-- platform-names:start -->';
const platformNamesEnd = '<!-- platform-names:end -->';
const platformNeutralStart = '<!-- platform-neutral:start -->';
const platformNeutralEnd = '<!-- platform-neutral:end -->';
const publicExportsStart = '<!-- public-exports:start -->';
const publicExportsEnd = '<!-- public-exports:end -->';

/** `web` is `web/src`; any other `<package>[/<path>]` is `packages/<package>/src[/<path>]`. */
export function locationOfModule(name: string): string {
  const [first, ...rest] = name.split('/');
  const base = first === 'web' ? 'web/src' : `packages/${first}/src`;
  return [base, ...rest].join('/');
}

function between(text: string, start: string, end: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/ARCHITECTURE.md has no ${start} … ${end} section`);
  return text.slice(from + start.length, to);
}

function tableRows(section: string): string[][] {
  return section
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line))
    .slice(1) // header
    .map((line) =>
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
}

const codeSpans = (cell: string): string[] =>
  [...cell.matchAll(/`([^`]+)`/g)].map((match) => match[1] as string);

function allowancesOf(cell: string): Map<string, Allowance> {
  const allows = new Map<string, Allowance>();
  for (const match of cell.matchAll(/`([^`]+)`(\s*\((types|dynamic)\))?/g)) {
    allows.set(match[1] as string, (match[3] as Allowance | undefined) ?? 'all');
  }
  return allows;
}

export function parseRules(document: string): Rules {
  const modules = tableRows(between(document, tableStart, tableEnd)).map((cells) => {
    const name = codeSpans(cells[0] ?? '')[0];
    if (!name) throw new Error(`dependency table row without a module name: | ${cells.join(' | ')} |`);
    return { name, location: locationOfModule(name), allows: allowancesOf(cells.at(-1) ?? '') };
  });
  const exceptions = tableRows(between(document, exceptionsStart, exceptionsEnd)).map((cells) => {
    const location = codeSpans(cells[0] ?? '')[0];
    if (!location) throw new Error(`exception row without a path: | ${cells.join(' | ')} |`);
    return { location, allows: allowancesOf(cells[1] ?? ''), why: cells[2] ?? '' };
  });
  const platformModules = new Set(codeSpans(between(document, platformStart, platformEnd)));
  const allowedFileCycles = tableRows(between(document, fileCyclesStart, fileCyclesEnd)).map((cells) => ({
    files: codeSpans(cells[0] ?? ''),
    why: cells[1] ?? '',
  }));
  const platformNameAllowances = tableRows(between(document, platformNamesStart, platformNamesEnd)).map(
    (cells) => {
      const location = codeSpans(cells[0] ?? '')[0];
      if (!location) throw new Error(`platform-name row without a path: | ${cells.join(' | ')} |`);
      return { location, why: cells[1] ?? '' };
    },
  );
  const candidateNameAllowances = tableRows(between(document, candidateNamesStart, candidateNamesEnd)).map(
    (cells) => {
      const location = codeSpans(cells[0] ?? '')[0];
      if (!location) throw new Error(`candidate-name row without a path: | ${cells.join(' | ')} |`);
      return { location, why: cells[1] ?? '' };
    },
  );
  const rowTypeAllowances = tableRows(between(document, rowTypesStart, rowTypesEnd)).map((cells) => {
    const location = codeSpans(cells[0] ?? '')[0];
    if (!location) throw new Error(`row-type row without a path: | ${cells.join(' | ')} |`);
    return { location, why: cells[1] ?? '' };
  });
  const platformNeutral = tableRows(between(document, platformNeutralStart, platformNeutralEnd)).map(
    (cells) => {
      const location = codeSpans(cells[0] ?? '')[0];
      if (!location) throw new Error(`platform-neutral row without a path: | ${cells.join(' | ')} |`);
      return { location, why: cells[1] ?? '' };
    },
  );
  const publicModules = tableRows(between(document, publicExportsStart, publicExportsEnd)).map((cells) => {
    const name = codeSpans(cells[0] ?? '')[0];
    if (!name) throw new Error(`public-export row without a module: | ${cells.join(' | ')} |`);
    return name;
  });
  return {
    modules,
    exceptions,
    platformModules,
    allowedFileCycles,
    platformNameAllowances,
    candidateNameAllowances,
    rowTypeAllowances,
    publicModules,
    platformNeutral,
  };
}

/** Whether `file` is the file or inside the folder a table row names. */
const covers = (location: string, file: string) =>
  withoutExtension(file) === withoutExtension(location) || file.startsWith(`${location.replace(/\/$/, '')}/`);

const sourceExtensions = ['.ts', '.tsx'];
const isTestFile = (file: string) => /\.test\.tsx?$/.test(file);

function listSources(root: string, dir: string, out: string[] = []): string[] {
  const absolute = path.join(root, dir);
  if (!existsSync(absolute)) return out;
  for (const entry of readdirSync(absolute)) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    const relative = `${dir}/${entry}`;
    if (statSync(path.join(root, relative)).isDirectory()) listSources(root, relative, out);
    else if (sourceExtensions.some((ext) => entry.endsWith(ext)) && !entry.endsWith('.d.ts'))
      out.push(relative);
  }
  return out;
}

function sourceRoots(root: string): string[] {
  const packages = readdirSync(path.join(root, 'packages')).map((name) => `packages/${name}/src`);
  return [...packages, 'web/src'];
}

/** Every import of a file, with its kind (type-only, dynamic `import()`, or a value import). */
export function importsOf(file: string, text: string): ImportEdge[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: ImportEdge[] = [];
  const add = (node: ts.Node, specifier: string, kind: ImportKind) =>
    edges.push({
      file,
      specifier,
      kind,
      line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
    });
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            clause.namedBindings !== undefined &&
            ts.isNamedImports(clause.namedBindings) &&
            clause.namedBindings.elements.length > 0 &&
            clause.namedBindings.elements.every((element) => element.isTypeOnly)));
      add(node, node.moduleSpecifier.text, typeOnly ? 'type' : 'value');
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node, node.moduleSpecifier.text, node.isTypeOnly ? 'type' : 'value');
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node, node.arguments[0].text, 'dynamic');
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      add(node, node.argument.literal.text, 'type');
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

interface PackageInfo {
  dir: string;
  exports: Record<string, unknown>;
}

function workspacePackages(root: string): Map<string, PackageInfo> {
  const packages = new Map<string, PackageInfo>();
  const dirs = [...readdirSync(path.join(root, 'packages')).map((name) => `packages/${name}`), 'web'];
  for (const dir of dirs) {
    const manifest = path.join(root, dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const json = JSON.parse(readFileSync(manifest, 'utf8')) as {
      name: string;
      exports?: Record<string, unknown>;
    };
    packages.set(json.name, { dir, exports: json.exports ?? {} });
  }
  return packages;
}

function sourceTarget(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (entry && typeof entry === 'object') {
    const conditions = entry as Record<string, unknown>;
    return sourceTarget(conditions['setpoint-source'] ?? conditions.default);
  }
  return undefined;
}

/** A workspace package's subpath, resolved through its `exports` with the `setpoint-source` condition. */
function resolvePackageSubpath(info: PackageInfo, subpath: string): string | undefined {
  const exact = sourceTarget(info.exports[subpath]);
  if (exact) return path.posix.join(info.dir, exact);
  for (const [key, value] of Object.entries(info.exports)) {
    if (!key.includes('*')) continue;
    const [prefix, suffix] = key.split('*') as [string, string];
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix)) {
      const middle = subpath.slice(prefix.length, subpath.length - suffix.length);
      const target = sourceTarget(value);
      if (target) return path.posix.join(info.dir, target.replace('*', middle));
    }
  }
  return undefined;
}

function withoutExtension(file: string): string {
  return file.replace(/\.(tsx?|jsx?|mjs)$/, '').replace(/\/index$/, '');
}

/** The repository-relative source path an import points at, or undefined for a third-party package. */
function resolveSpecifier(
  from: string,
  specifier: string,
  packages: Map<string, PackageInfo>,
): string | undefined {
  if (specifier.startsWith('.'))
    return withoutExtension(path.posix.join(path.posix.dirname(from), specifier));
  for (const [name, info] of packages) {
    if (specifier === name || specifier.startsWith(`${name}/`)) {
      const subpath = specifier === name ? '.' : `./${specifier.slice(name.length + 1)}`;
      const target = resolvePackageSubpath(info, subpath);
      return target ? withoutExtension(target) : `${info.dir}/<unexported ${subpath}>`;
    }
  }
  return undefined;
}

function moduleOf(location: string, modules: ModuleRow[]): ModuleRow | undefined {
  let best: ModuleRow | undefined;
  for (const row of modules) {
    if (location === row.location || location.startsWith(`${row.location}/`)) {
      if (!best || row.location.length > best.location.length) best = row;
    }
  }
  return best;
}

const permits = (allowance: Allowance | undefined, kind: ImportKind): boolean =>
  allowance === 'all' ||
  (allowance === 'dynamic' && kind !== 'value') ||
  (allowance === 'types' && kind === 'type');

function findCycle(graph: Map<string, Set<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const cycle = visit(next);
        if (cycle) return cycle;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    if (!state.has(node)) {
      const cycle = visit(node);
      if (cycle) return cycle;
    }
  }
  return undefined;
}

const queryBuilderCall =
  /\.(selectFrom|insertInto|updateTable|deleteFrom|mergeInto|replaceInto|selectNoFrom)\s*\(|\bsql\s*(<[^>]*>)?\s*`/;
const mayBuildQueries = (file: string) =>
  /-repository\.ts$/.test(file) ||
  file.startsWith('packages/setpoint/src/store/') ||
  /\/\d{4}-[a-z0-9-]+\.ts$/.test(file); // a migration, the core's or a platform's

/** An import of a row's type: kysely's row helpers, or a table of the store's schema. */
const rowTypeImport =
  /import\s+(?:type\s+)?\{[^}]*\b(?:Selectable|Insertable|Updateable)\b[^}]*\}\s*from\s*'kysely'|import\s+(?:type\s+)?\{[^}]*\b\w+Table\b[^}]*\}\s*from\s*'[^']*store\/database-schema(?:\.js)?'/;

/** An import of a platform's plugin, or of the registry the composition root keeps its plugins in. */
const platformPluginImport =
  /import\s+(?:type\s+)?\{[^}]*\b(PlatformPlugin|PlatformRegistry)\b[^}]*\}\s*from\s*'[^']*platform-api\/[^']*'/;
/** Who may hold a platform's plugin: the composition root creates runtimes from them; the platform API declares them. */
const mayHoldPlugins = new Set(['setpoint/composition', 'setpoint/platform-api']);

export function checkArchitecture(options: CheckOptions): CheckResult {
  const { root } = options;
  const overlay = options.overlay ?? {};
  const document = options.document ?? readFileSync(path.join(root, 'docs/ARCHITECTURE.md'), 'utf8');
  const rules = parseRules(document);
  const packages = workspacePackages(root);
  const problems: string[] = [];
  const read = (file: string) => overlay[file] ?? readFileSync(path.join(root, file), 'utf8');

  const overlaid = Object.keys(overlay).filter((file) => sourceExtensions.some((ext) => file.endsWith(ext)));
  const roots = sourceRoots(root);
  const files = [
    ...new Set([
      ...roots.flatMap((dir) => listSources(root, dir)),
      ...overlaid.filter((file) => roots.some((dir) => file.startsWith(`${dir}/`))),
    ]),
  ].sort();
  const scripts = [
    ...new Set([...listSources(root, 'scripts'), ...overlaid.filter((file) => file.startsWith('scripts/'))]),
  ].sort();
  const fileByStem = new Map(files.map((file) => [withoutExtension(file), file]));
  const platformNames = [...rules.platformModules]
    .filter((name) => name.startsWith('setpoint/platforms/'))
    .map((name) => name.slice('setpoint/platforms/'.length));
  const productSources = `${productPackage}/src/`;
  const publicLocations = rules.publicModules.map((name) => ({ name, location: locationOfModule(name) }));
  const usedPublicModules = new Set<string>();
  /** An import of the product from another package or a script: only into a public module. */
  const checkPublicImport = (file: string, edge: ImportEdge, target: string) => {
    if (!target.startsWith(productSources) && !target.startsWith(`${productPackage}/<`)) return;
    const reached = publicLocations.find(
      ({ location }) => target === location || target.startsWith(`${location}/`),
    );
    if (reached) {
      usedPublicModules.add(reached.name);
      return;
    }
    problems.push(
      `${file}:${edge.line}: imports ${edge.specifier}, which the product does not export: list its module under the public exports of docs/ARCHITECTURE.md, or import a public one`,
    );
  };
  const fileGraph = new Map<string, Set<string>>();
  const usedNameAllowances = new Set<string>();
  const usedRowTypeAllowances = new Set<string>();
  const usedCandidateAllowances = new Set<string>();
  const usedNeutral = new Set<string>();
  /** A candidate's instance type or id read as text, outside the files the document allows. */
  const checkCandidateNames = (file: string, text: string) => {
    const reads = candidateNameReadsIn(file, text);
    if (reads.length === 0) return;
    const allowance = rules.candidateNameAllowances.find((row) => covers(row.location, file));
    if (allowance) {
      usedCandidateAllowances.add(allowance.location);
      return;
    }
    for (const read of reads)
      problems.push(
        `${file}:${read.line}: reads a candidate's name as text (${read.text}): candidates are facts; read the field (engine, storage, instance type), or translate the name once where it arrives`,
      );
  };

  const byName = new Map(rules.modules.map((row) => [row.name, row]));
  for (const row of [...rules.modules, ...rules.exceptions]) {
    for (const target of row.allows.keys()) {
      if (!byName.has(target))
        problems.push(`docs/ARCHITECTURE.md: \`${target}\` is not a module of the table`);
    }
  }
  for (const name of rules.platformModules) {
    if (!byName.has(name))
      problems.push(`docs/ARCHITECTURE.md: platform module \`${name}\` is not in the table`);
  }
  for (const row of rules.modules) {
    if (rules.platformModules.has(row.name)) continue;
    for (const target of row.allows.keys()) {
      if (rules.platformModules.has(target)) {
        problems.push(
          `docs/ARCHITECTURE.md: \`${row.name}\` may not import the platform module \`${target}\` as a whole; name the files in the exception table`,
        );
      }
    }
  }

  const edges = new Map<string, Map<string, Set<ImportKind>>>();
  const usedEdges = new Set<string>();
  const usedExceptions = new Set<string>();
  const usedModules = new Set<string>();
  const subfolderGraphs = new Map<string, Map<string, Set<string>>>();

  for (const file of files) {
    const text = read(file);
    const owner = moduleOf(withoutExtension(file), rules.modules);
    if (!owner) {
      problems.push(`${file}: belongs to no module of the dependency table in docs/ARCHITECTURE.md`);
      continue;
    }
    usedModules.add(owner.name);
    if (isTestFile(file)) continue; // tests may import what they exercise
    checkCandidateNames(file, text);

    if (
      !rules.platformModules.has(owner.name) &&
      !rules.exceptions.some((row) => covers(row.location, file))
    ) {
      const uses = platformNamesIn(file, text, platformNames);
      const allowance = rules.platformNameAllowances.find((row) => covers(row.location, file));
      if (allowance && uses.length > 0) usedNameAllowances.add(allowance.location);
      else
        for (const use of uses)
          problems.push(
            `${file}:${use.line}: names the platform ${use.platform} as a value ('${use.text}'): the core names no platform; ask the platform's runtime, or move this into the platform`,
          );
    }

    const neutral = rules.platformNeutral.find((row) => covers(row.location, file));
    if (neutral) {
      usedNeutral.add(neutral.location);
      for (const use of platformWordsIn(text, platformNames))
        problems.push(
          `${file}:${use.line}: names the platform ${use.platform} (${use.text}): this file is platform-neutral (docs/ARCHITECTURE.md); what differs by platform is the platform's connector`,
        );
    }

    const plugin = platformPluginImport.exec(text);
    if (plugin && !mayHoldPlugins.has(owner.name) && !rules.platformModules.has(owner.name)) {
      problems.push(
        `${file}: imports ${plugin[1]}: the core reaches a platform through one door, its runtime (PlatformRuntime: runs, coster, recommender, writer…); only the composition root holds the plugins`,
      );
    }
    if (queryBuilderCall.test(text) && !mayBuildQueries(file)) {
      problems.push(`${file}: builds SQL queries; only *-repository.ts files (and the store) may`);
    }
    if (rowTypeImport.test(text) && !mayBuildQueries(file)) {
      const allowance = rules.rowTypeAllowances.find((row) => covers(row.location, file));
      if (allowance) usedRowTypeAllowances.add(allowance.location);
      else
        problems.push(
          `${file}: imports a row type (a table of the store's schema, or kysely's Selectable, Insertable, Updateable); repositories return records and take typed changes: map rows inside the *-repository.ts file`,
        );
    }

    for (const edge of importsOf(file, text)) {
      if (edge.specifier === 'kysely' && edge.kind !== 'type' && !mayBuildQueries(file)) {
        problems.push(
          `${file}:${edge.line}: imports kysely values; only *-repository.ts files (and the store) may`,
        );
      }
      const target = resolveSpecifier(file, edge.specifier, packages);
      if (target === undefined) continue;
      const targetFile = fileByStem.get(target);
      if (targetFile) fileGraph.set(file, (fileGraph.get(file) ?? new Set()).add(targetFile));
      if (!file.startsWith(productSources)) checkPublicImport(file, edge, target);
      const targetModule = moduleOf(target, rules.modules);
      if (!targetModule) {
        problems.push(
          `${file}:${edge.line}: imports ${edge.specifier}, which belongs to no module of the table`,
        );
        continue;
      }
      if (targetModule === owner) {
        const inner = (location: string) => location.slice(owner.location.length + 1).split('/');
        const [fromFolder, ...fromRest] = inner(withoutExtension(file));
        const [toFolder, ...toRest] = inner(target);
        if (fromRest.length > 0 && toRest.length > 0 && fromFolder !== toFolder && fromFolder && toFolder) {
          const graph = subfolderGraphs.get(owner.name) ?? new Map<string, Set<string>>();
          subfolderGraphs.set(owner.name, graph);
          graph.set(fromFolder, (graph.get(fromFolder) ?? new Set()).add(toFolder));
        }
        continue;
      }
      const kinds = edges.get(owner.name) ?? new Map<string, Set<ImportKind>>();
      edges.set(owner.name, kinds);
      kinds.set(targetModule.name, (kinds.get(targetModule.name) ?? new Set()).add(edge.kind));

      if (permits(owner.allows.get(targetModule.name), edge.kind)) {
        usedEdges.add(`${owner.name} → ${targetModule.name}`);
        continue;
      }
      const exception = rules.exceptions.find(
        (row) =>
          (withoutExtension(file) === withoutExtension(row.location) ||
            file.startsWith(`${row.location.replace(/\/$/, '')}/`)) &&
          permits(row.allows.get(targetModule.name), edge.kind),
      );
      if (exception) {
        usedExceptions.add(`${exception.location} → ${targetModule.name}`);
        continue;
      }
      const allowed = owner.allows.get(targetModule.name);
      problems.push(
        allowed
          ? `${file}:${edge.line}: ${edge.kind} import of ${edge.specifier}: ${owner.name} may import ${targetModule.name} only (${allowed}) (docs/ARCHITECTURE.md)`
          : `${file}:${edge.line}: ${owner.name} must not import ${targetModule.name} (${edge.specifier}): the dependency table in docs/ARCHITECTURE.md does not allow it`,
      );
    }
  }

  for (const row of rules.modules) {
    if (!usedModules.has(row.name))
      problems.push(`docs/ARCHITECTURE.md: module \`${row.name}\` has no files`);
    for (const target of row.allows.keys()) {
      if (!usedEdges.has(`${row.name} → ${target}`)) {
        problems.push(
          `docs/ARCHITECTURE.md: \`${row.name}\` may import \`${target}\` but does not: remove the edge`,
        );
      }
    }
  }
  for (const row of rules.exceptions) {
    for (const target of row.allows.keys()) {
      if (!usedExceptions.has(`${row.location} → ${target}`)) {
        problems.push(
          `docs/ARCHITECTURE.md: the exception for \`${row.location}\` → \`${target}\` is not used: remove it`,
        );
      }
    }
  }

  const allowedGraph = new Map<string, Set<string>>();
  for (const row of rules.modules) allowedGraph.set(row.name, new Set(row.allows.keys()));
  for (const row of rules.exceptions) {
    const owner = moduleOf(withoutExtension(row.location.replace(/\/$/, '')), rules.modules);
    if (!owner) {
      problems.push(`docs/ARCHITECTURE.md: the exception \`${row.location}\` is in no module`);
      continue;
    }
    for (const target of row.allows.keys()) allowedGraph.get(owner.name)?.add(target);
  }
  const cycle = findCycle(allowedGraph);
  if (cycle)
    problems.push(`docs/ARCHITECTURE.md: the allowed dependencies form a cycle: ${cycle.join(' → ')}`);
  for (const [module, graph] of subfolderGraphs) {
    const inner = findCycle(graph);
    if (inner) problems.push(`${module}: its folders import each other in a cycle: ${inner.join(' → ')}`);
  }

  problems.push(...fileCycleProblems(fileGraph, rules.allowedFileCycles));
  for (const row of rules.rowTypeAllowances) {
    if (!usedRowTypeAllowances.has(row.location))
      problems.push(
        `docs/ARCHITECTURE.md: \`${row.location}\` may import a row type but does not: remove it from the row-type allowances`,
      );
  }
  for (const row of rules.platformNeutral) {
    if (!usedNeutral.has(row.location))
      problems.push(
        `docs/ARCHITECTURE.md: platform-neutral \`${row.location}\` has no source file: remove it or correct the path`,
      );
  }
  for (const row of rules.platformNameAllowances) {
    if (!usedNameAllowances.has(row.location))
      problems.push(
        `docs/ARCHITECTURE.md: \`${row.location}\` may name a platform but does not: remove it from the platform-name allowances`,
      );
  }

  for (const file of scripts) {
    if (isTestFile(file)) continue;
    checkCandidateNames(file, read(file));
    for (const edge of importsOf(file, read(file))) {
      const target = resolveSpecifier(file, edge.specifier, packages);
      if (target !== undefined) checkPublicImport(file, edge, target);
    }
  }
  for (const row of rules.candidateNameAllowances) {
    if (!usedCandidateAllowances.has(row.location))
      problems.push(
        `docs/ARCHITECTURE.md: \`${row.location}\` may read a candidate's name but does not: remove it from the candidate-name allowances`,
      );
  }

  const productManifest = JSON.parse(read(`${productPackage}/package.json`)) as {
    exports?: Record<string, unknown>;
  };
  problems.push(...productExportsProblems(productManifest.exports, rules.publicModules));
  for (const name of rules.publicModules) {
    if (!byName.has(name))
      problems.push(`docs/ARCHITECTURE.md: public export \`${name}\` is not a module of the table`);
    else if (!usedPublicModules.has(name))
      problems.push(
        `docs/ARCHITECTURE.md: the product exports \`${name}\` but no other package or script imports it: remove it`,
      );
  }

  return { problems, edges };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const { problems, edges } = checkArchitecture({ root });
  if (process.argv.includes('--edges')) {
    for (const [from, targets] of [...edges].sort()) {
      const list = [...targets]
        .sort()
        .map(([to, kinds]) => (kinds.has('value') ? to : `${to} (${[...kinds].join('/')})`));
      process.stdout.write(`${from}: ${list.join(', ')}\n`);
    }
  }
  if (problems.length > 0) {
    process.stderr.write(
      `architecture: ${problems.length} problem(s)\n${problems.map((p) => `  ${p}`).join('\n')}\n`,
    );
    process.exitCode = 1;
  } else {
    process.stdout.write('architecture: the tree follows docs/ARCHITECTURE.md\n');
  }
}
