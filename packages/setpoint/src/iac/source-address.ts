import { ValidationError } from '@setpoint/foundation/errors';
import type { CodeFormat } from './code-edit.js';

/** The tag a job carries to say where its configuration lives: `setpoint:source = <repository>//<path>`. */
export const sourceTagKey = 'setpoint:source';

export interface SourceAddress {
  repository: string;
  path: string;
  /** `?ref=<branch>` after the path: the branch proposals go to (else the remote's default). */
  branch: string | null;
}

/**
 * `<repository>//<path>[?ref=<branch>]`, as Terraform writes module sources: the last `//` that does not
 * end a URL scheme separates the repository from the file in it.
 */
export function parseSourceAddress(value: string): SourceAddress {
  const [location = '', query = ''] = value.trim().split('?', 2);
  let separator = location.lastIndexOf('//');
  while (separator > 0 && location[separator - 1] === ':')
    separator = location.lastIndexOf('//', separator - 1);
  if (separator <= 0)
    throw new ValidationError(
      'INVALID_SOURCE_ADDRESS',
      `"${value}" is not <repository>//<path> (e.g. https://github.com/acme/infra.git//jobs/orders.tf)`,
    );
  const branch = new URLSearchParams(query).get('ref');
  return {
    repository: location.slice(0, separator),
    path: location.slice(separator + 2),
    branch: branch || null,
  };
}

/** The format a file is edited as, from its name: `.tf` Terraform, `.yml`/`.yaml` a bundle, `.py` a DAG. */
export function formatOfPath(path: string): CodeFormat {
  if (path.endsWith('.tf')) return 'terraform';
  if (path.endsWith('.yml') || path.endsWith('.yaml')) return 'bundle';
  if (path.endsWith('.py')) return 'airflow';
  throw new ValidationError(
    'UNKNOWN_SOURCE_FORMAT',
    `cannot tell how to edit ${path}: Setpoint edits Terraform (.tf), bundle YAML (.yml, .yaml) and Airflow DAGs (.py)`,
  );
}

/** A path inside the repository: relative, `/`-separated, never leaving it. */
export function checkRepositoryPath(path: string, field: string): string {
  const normalized = path.trim().replace(/^\.\//, '');
  if (
    normalized === '' ||
    normalized.startsWith('/') ||
    normalized.split('/').includes('..') ||
    normalized.includes('\\')
  )
    throw new ValidationError(
      'INVALID_SOURCE_PATH',
      `${field} must be a path inside the repository, e.g. infra/jobs.tf`,
    );
  return normalized;
}
