/**
 * Files that import each other in a cycle, through any kind of import (a type-only or dynamic import ties
 * two files together as surely as a value import: neither can move or be read alone).
 */

/** Groups of two or more files that reach each other (Tarjan's strongly connected components), sorted. */
export function fileCycles(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const lowest = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    lowest.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        lowest.set(file, Math.min(lowest.get(file) as number, lowest.get(target) as number));
      } else if (onStack.has(target)) {
        lowest.set(file, Math.min(lowest.get(file) as number, index.get(target) as number));
      }
    }
    if (lowest.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.has(file)) cycles.push(component.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return cycles.sort((a, b) => (a[0] as string).localeCompare(b[0] as string));
}

/** A cycle the document still allows, with why and until when. */
export interface AllowedCycle {
  files: readonly string[];
  why: string;
}

/**
 * Problems: a cycle the document does not list (with its files), and a listed cycle the tree no longer
 * has exactly (the allowance must shrink with the cycle).
 */
export function fileCycleProblems(
  graph: ReadonlyMap<string, ReadonlySet<string>>,
  allowed: readonly AllowedCycle[],
): string[] {
  const key = (files: readonly string[]) => [...files].sort().join(' ');
  const allowedKeys = new Set(allowed.map((cycle) => key(cycle.files)));
  const found = fileCycles(graph);
  const foundKeys = new Set(found.map(key));
  return [
    ...found
      .filter((cycle) => !allowedKeys.has(key(cycle)))
      .map(
        (cycle) =>
          `these files import each other in a cycle (type-only and dynamic imports count): ${cycle.join(' → ')}; move what they share into a file of its own`,
      ),
    ...allowed
      .filter((cycle) => !foundKeys.has(key(cycle.files)))
      .map(
        (cycle) =>
          `docs/ARCHITECTURE.md: the allowed file cycle ${cycle.files.map((file) => `\`${file}\``).join(', ')} is not in the tree as listed: remove or update the row`,
      ),
  ];
}
