import { editDag } from './airflow/dag-editor.js';
import { editBundle } from './bundle/bundle-editor.js';
import {
  type CodeEdits,
  type CodeFormat,
  CodeRefusal,
  type CodeTree,
  type EditOutcome,
} from './code-edit.js';
import { editTerraform } from './hcl/terraform-editor.js';

/** Where in a repository a job's configuration lives, as a source link says it. */
export interface CodeLocation {
  format: CodeFormat;
  path: string;
  /** The Terraform resource, bundle job key or DAG task id, when the file holds several. */
  address?: string | null | undefined;
  /** The deployed bundle target. */
  target?: string | null | undefined;
  /** The Terraform variables file the team applies with. */
  tfvars?: string | null | undefined;
}

/** Edits a repository's files with the editor of the location's format. */
export async function editCode(
  tree: CodeTree,
  location: CodeLocation,
  edits: CodeEdits,
): Promise<EditOutcome> {
  const address = location.address ?? undefined;
  switch (location.format) {
    case 'terraform':
      if (!edits.terraform) break;
      return editTerraform(
        tree,
        { path: location.path, resource: address, tfvars: location.tfvars ?? undefined },
        edits.terraform,
      );
    case 'bundle':
      if (!edits.bundle) break;
      return editBundle(
        tree,
        { path: location.path, target: location.target ?? undefined },
        address ? { ...edits.bundle, job: { ...edits.bundle.job, key: address } } : edits.bundle,
      );
    case 'airflow':
      if (!edits.airflow) break;
      return editDag(tree, { path: location.path, taskId: address }, edits.airflow);
  }
  const known = Object.keys(edits).join(', ') || 'none';
  throw new CodeRefusal(`the project's platform has no mapping to ${location.format} (it maps: ${known})`);
}
