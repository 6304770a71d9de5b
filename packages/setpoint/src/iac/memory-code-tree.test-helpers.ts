import type { CodeTree } from './code-edit.js';

/** A repository held in memory: path → text. */
export function memoryCodeTree(files: Record<string, string>): CodeTree {
  return {
    async read(path) {
      return files[path] ?? null;
    },
    async list(directory) {
      const prefix = directory ? `${directory}/` : '';
      const names = Object.keys(files)
        .filter((path) => path.startsWith(prefix))
        .map((path) => path.slice(prefix.length).split('/')[0] as string);
      return [...new Set(names)];
    },
  };
}
