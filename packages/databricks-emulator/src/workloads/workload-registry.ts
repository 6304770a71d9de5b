import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '@setpoint/foundation/errors';
import { type Workload, workloadSchema } from './schema.js';
import { shippedWorkloads } from './shipped-workloads.js';

type Keyed = Record<string, unknown>;

const defaultWorkloadName = 'daily-aggregation';

function field(value: unknown, name: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const found = (value as Keyed)[name];
  return typeof found === 'string' ? found : undefined;
}

function baseName(reference: string): string {
  const last = reference.split(/[/\\]/).pop() ?? reference;
  return last.replace(/\.(py|ipynb|sql|scala|jar)$/i, '').toLowerCase();
}

/**
 * Which workload a task "runs": the file or notebook it names, by base name
 * (`dbfs:/jobbank/join-heavy-etl.py` runs `join-heavy-etl`). Unknown names run the default workload.
 */
export class WorkloadRegistry {
  private readonly workloads = new Map<string, Workload>();

  constructor(initial: readonly Workload[] = shippedWorkloads) {
    for (const workload of initial) this.workloads.set(workload.name, workload);
  }

  add(workload: Workload): void {
    this.workloads.set(workload.name, workload);
  }

  get(name: string): Workload | undefined {
    return this.workloads.get(name);
  }

  list(): Workload[] {
    return [...this.workloads.values()];
  }

  resolveTask(task: Keyed): Workload {
    const references = [
      field(task.spark_python_task, 'python_file'),
      field(task.notebook_task, 'notebook_path'),
      field(task.spark_jar_task, 'main_class_name')?.split('.').pop(),
      field(task.python_wheel_task, 'entry_point'),
      field(
        typeof task.sql_task === 'object' && task.sql_task !== null
          ? (task.sql_task as Keyed).file
          : undefined,
        'path',
      ),
    ];
    return this.resolveReferences(references);
  }

  /** The first reference (a file, notebook or class name) naming a known workload; else the default one. */
  resolveReferences(references: readonly (string | undefined)[]): Workload {
    for (const reference of references) {
      if (!reference) continue;
      const workload = this.workloads.get(baseName(reference));
      if (workload) return workload;
    }
    return this.workloads.get(defaultWorkloadName) ?? [...this.workloads.values()][0]!;
  }

  /** Adds every `*.json` workload model in a directory (as written by `setpoint emulator import-workload`). */
  loadDirectory(directory: string): number {
    let count = 0;
    for (const name of readdirSync(directory)
      .filter((entry) => entry.endsWith('.json'))
      .sort()) {
      const path = join(directory, name);
      const parsed = workloadSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      if (!parsed.success) {
        throw new ValidationError(
          'WORKLOAD_INVALID',
          `${path} is not a workload model: ${parsed.error.issues[0]?.message}`,
        );
      }
      this.add(parsed.data);
      count += 1;
    }
    return count;
  }
}
