/**
 * The product package's public exports: the modules of `packages/setpoint` that other packages and the
 * scripts may import (built, from `dist/`). Its `package.json` exports exactly those, one subpath pattern
 * per module, and exports every source file only under the `setpoint-source` condition, which the
 * repository's own tests and type check use.
 */
import { isDeepStrictEqual } from 'node:util';

export const productPackage = 'packages/setpoint';

/** `setpoint/<path>` → `./<path>/*`, with the source, types and built entry of that module. */
export function expectedProductExports(publicModules: readonly string[]): Record<string, unknown> {
  const exports: Record<string, unknown> = { './*': { 'setpoint-source': './src/*.ts' } };
  for (const name of [...publicModules].sort()) {
    const inner = name.slice('setpoint/'.length);
    exports[`./${inner}/*`] = {
      'setpoint-source': `./src/${inner}/*.ts`,
      types: `./dist/${inner}/*.d.ts`,
      default: `./dist/${inner}/*.js`,
    };
  }
  exports['./package.json'] = './package.json';
  return exports;
}

export function productExportsProblems(
  actual: Record<string, unknown> | undefined,
  publicModules: readonly string[],
): string[] {
  const problems: string[] = [];
  for (const name of publicModules) {
    if (!name.startsWith('setpoint/'))
      problems.push(`docs/ARCHITECTURE.md: public export \`${name}\` is not a module of the product`);
  }
  const expected = expectedProductExports(publicModules.filter((name) => name.startsWith('setpoint/')));
  if (!isDeepStrictEqual(actual, expected)) {
    problems.push(
      `${productPackage}/package.json: "exports" must be the public modules of docs/ARCHITECTURE.md and the sources for the repository: ${JSON.stringify(expected)}`,
    );
  }
  return problems;
}
