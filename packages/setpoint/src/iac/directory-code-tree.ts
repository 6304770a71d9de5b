import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CodeTree } from './code-edit.js';

/** A checked-out repository as an editor reads it; paths outside its root are refused. */
export function directoryCodeTree(root: string): CodeTree {
  const resolve = (relative: string) => {
    const full = path.resolve(root, relative);
    if (full !== root && !full.startsWith(`${path.resolve(root)}${path.sep}`))
      throw new Error(`${relative} is outside the repository`);
    return full;
  };
  return {
    async read(relative) {
      try {
        return await readFile(resolve(relative), 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
    async list(directory) {
      try {
        const entries = await readdir(resolve(directory), { withFileTypes: true });
        return entries.filter((entry) => entry.name !== '.git').map((entry) => entry.name);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
    },
  };
}
