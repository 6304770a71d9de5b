import { ConflictError } from '@setpoint/foundation/errors';

/**
 * What Setpoint asks of a team's code, in terms no format owns: a platform says which block holds its
 * cluster and what its managed fields should be; an editor (Terraform, bundle YAML, an Airflow DAG)
 * finds that block in the files and changes exactly those fields, byte for byte everything else.
 */
export type CodeScalar = string | number | boolean;

export type DesiredValue =
  /** The field holds this literal. */
  | CodeScalar
  /** The field is removed (e.g. `num_workers` when the cluster becomes autoscaling). */
  | null
  /** A nested block, mapping or dict: the fields listed are set, every other one is kept; created when missing. */
  | { block: DesiredFields }
  /** Repeated blocks or a list of mappings, replaced whole (e.g. EMR's EBS volumes). */
  | { blocks: DesiredFields[] }
  /** List entries matched by a key field (EMR's instance groups by role): each set, added, or removed (null). */
  | { keyed: { key: string; entries: Record<string, DesiredFields | null> } }
  /** An expression written as is where the format has them (a Terraform reference); never compared. */
  | { expression: string }
  /** An attribute of a resource found earlier in a Terraform edit (`aws_emr_cluster.<its name>.id`). */
  | { reference: { resource: number; attribute: string } };

export type DesiredFields = { readonly [field: string]: DesiredValue };

/** One step from a container to the block holding the managed fields: a field, and which entry when repeated. */
export interface PathStep {
  field: string;
  where?: Record<string, string>;
}

/** How a Terraform resource is found when the link names none. */
export type ResourceMatch =
  /** A literal attribute, e.g. `name = "Orders nightly"` of a `databricks_job`. */
  | { attribute: string; equals: string }
  /** An attribute referencing an earlier resource of the edit, e.g. `cluster_id = aws_emr_cluster.x.id`. */
  | { attribute: string; references: { resource: number; attribute: string } };

export interface TerraformResourceEdit {
  type: string;
  match: ResourceMatch;
  /** From the resource's body to the block whose fields are set (empty: the resource itself). */
  path: PathStep[];
  fields: DesiredFields;
  /**
   * When no resource matches: refuse (the default), leave it (nothing to change, e.g. no task group and
   * none wanted), or append a new resource with these arguments after the first resource of the edit,
   * named after it with `suffix` (`orders` → `orders_task`).
   */
  whenMissing?: 'refuse' | 'skip' | { append: { suffix: string; fields: DesiredFields } };
}

export interface TerraformEdit {
  format: 'terraform';
  resources: TerraformResourceEdit[];
}

export interface BundleEdit {
  format: 'bundle';
  /** The job in `resources.jobs`: its key when known, else its `name`. */
  job: { key?: string; name: string };
  path: PathStep[];
  fields: DesiredFields;
}

export interface DagEdit {
  format: 'airflow';
  /** Operator classes whose call holds the cluster (`DatabricksSubmitRunOperator`). */
  operators: string[];
  /** Where in the call the cluster may be: a keyword argument, then a path inside its dict. */
  locations: { argument: string; path: PathStep[] }[];
  fields: DesiredFields;
  /** What to use when the cluster is not a literal in the DAG file, named in the refusal. */
  fallback: string;
}

/** A recommendation in every format the platform maps it to; a format it has no mapping for is absent. */
export interface CodeEdits {
  terraform?: TerraformEdit;
  bundle?: BundleEdit;
  airflow?: DagEdit;
}

export type CodeFormat = keyof CodeEdits;

/** The repository's files as an editor reads them (paths relative to the repository root, `/`-separated). */
export interface CodeTree {
  read(path: string): Promise<string | null>;
  /** Files directly in a directory ('' is the root), names only. */
  list(directory: string): Promise<string[]>;
}

export interface FileChange {
  path: string;
  before: string;
  after: string;
}

export interface EditOutcome {
  /** Files whose text changed (none: the code already says what the recommendation says). */
  changes: FileChange[];
  /** What was changed where, in words, e.g. "num_workers: var.workers's default in variables.tf, 8 → 5". */
  notes: string[];
}

/**
 * Setpoint will not edit the code: the value is an expression it cannot rewrite, the block is not
 * where the link says, or the file does not parse. The message names the expression and where it is.
 */
export class CodeRefusal extends ConflictError {
  constructor(message: string) {
    super('IAC_REFUSED', message);
  }
}

/** `file:line` for messages (line is 0-based as parsers give it). */
export function where(path: string, row: number): string {
  return `${path}:${row + 1}`;
}

export function isBlock(value: DesiredValue): value is { block: DesiredFields } {
  return typeof value === 'object' && value !== null && 'block' in value;
}
