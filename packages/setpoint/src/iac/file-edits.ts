import type { EditOutcome } from './code-edit.js';
import { applySplices, type Splice } from './text-splice.js';

/** The splices an editor collects over one or more files (a value may live in another file), applied at once. */
export class FileEdits {
  readonly #files = new Map<string, { text: string; splices: Splice[] }>();
  readonly notes: string[] = [];

  add(path: string, text: string, splice: Splice): void {
    const file = this.#files.get(path) ?? { text, splices: [] };
    this.#files.set(path, file);
    // the same change reached twice (a value two layers share) is one edit
    const same = (known: Splice) =>
      known.start === splice.start && known.end === splice.end && known.text === splice.text;
    if (file.splices.some(same)) return;
    file.splices.push(splice);
  }

  note(message: string): void {
    this.notes.push(message);
  }

  outcome(): EditOutcome {
    const changes = [...this.#files.entries()]
      .map(([path, file]) => ({ path, before: file.text, after: applySplices(file.text, file.splices) }))
      .filter((change) => change.after !== change.before);
    return { changes, notes: changes.length > 0 ? this.notes : [] };
  }
}
