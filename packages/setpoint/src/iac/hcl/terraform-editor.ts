import {
  CodeRefusal,
  type CodeTree,
  type EditOutcome,
  type TerraformEdit,
  type TerraformResourceEdit,
} from '../code-edit.js';
import { FileEdits } from '../file-edits.js';
import { firstSyntaxError, parseSyntax } from '../syntax-tree.js';
import { lineEnding } from '../text-splice.js';
import { descend, editBlock, type HclEditContext, indentUnit, renderBlock } from './hcl-block-editor.js';
import {
  attributeExpression,
  blocksIn,
  findAttribute,
  type HclBlockNode,
  literalValue,
  referencePath,
} from './hcl-syntax.js';
import { type HclFile, TerraformModule } from './terraform-module.js';

/** Where a Terraform configuration lives: its file, and optionally which resource and which `.tfvars`. */
export interface TerraformLocation {
  path: string;
  /** `databricks_job.orders_nightly`, when the file holds several of the type. */
  resource?: string | undefined;
  /** The `.tfvars` file the team applies with (`-var-file`), relative to the repository root. */
  tfvars?: string | undefined;
}

const address = (block: HclBlockNode) => `${block.labels[0]}.${block.labels[1]}`;

function findResource(
  file: HclFile,
  edit: TerraformResourceEdit,
  found: readonly (HclBlockNode | null)[],
  named: string | undefined,
): HclBlockNode | null {
  const candidates = blocksIn(file.body).filter(
    (block) => block.type === 'resource' && block.labels[0] === edit.type,
  );
  if (named) {
    const resource = candidates.find((block) => address(block) === named);
    if (!resource)
      throw new CodeRefusal(
        `${file.path} has no resource ${named}${candidates.length ? ` (it has ${candidates.map(address).join(', ')})` : ''}`,
      );
    return resource;
  }
  const { match } = edit;
  if ('equals' in match) {
    const values = candidates.map((block) => {
      const expression = attributeExpression(findAttribute(block.body, match.attribute) ?? block.node);
      return expression ? literalValue(expression) : undefined;
    });
    const exact = candidates.filter((_block, index) => values[index] === match.equals);
    if (exact.length === 1) return exact[0] as HclBlockNode;
    if (exact.length > 1)
      throw new CodeRefusal(
        `${file.path} has ${exact.length} ${edit.type} resources with ${match.attribute} = "${match.equals}" (${exact.map(address).join(', ')}); link the one to edit`,
      );
    // one resource of the type, its name an expression (e.g. "${var.env} orders"): that one
    const unnamed = candidates.filter((_block, index) => typeof values[index] !== 'string');
    if (candidates.length === 1 && unnamed.length === 1) return candidates[0] as HclBlockNode;
    if (candidates.length === 0) return null;
    throw new CodeRefusal(
      `${file.path} has no ${edit.type} with ${match.attribute} = "${match.equals}" (it has ${candidates.map(address).join(', ')}); link the resource to edit`,
    );
  }
  const target = found[match.references.resource];
  if (!target) return null;
  const wanted = [...address(target).split('.'), match.references.attribute];
  const referencing = candidates.filter((block) => {
    const expression = attributeExpression(findAttribute(block.body, match.attribute) ?? block.node);
    const path = expression ? referencePath(expression) : undefined;
    return path !== undefined && path.join('.') === wanted.join('.');
  });
  if (referencing.length > 1)
    throw new CodeRefusal(
      `${file.path} has ${referencing.length} ${edit.type} resources with ${match.attribute} = ${wanted.join('.')}`,
    );
  return referencing[0] ?? null;
}

/** Checks an edited HCL file still parses: an editor bug must never reach a repository. */
export async function assertParsesAsHcl(path: string, text: string): Promise<void> {
  const tree = await parseSyntax('hcl', text);
  try {
    const error = firstSyntaxError(tree.rootNode);
    if (error) throw new Error(`the edit of ${path} would not parse (at ${error}); nothing was written`);
  } finally {
    tree.delete();
  }
}

/**
 * Writes a recommendation into a Terraform configuration in place: the matching resource's managed
 * attributes, or the variable defaults, `.tfvars` entries and locals they name, and nothing else.
 */
export async function editTerraform(
  codeTree: CodeTree,
  location: TerraformLocation,
  edit: TerraformEdit,
): Promise<EditOutcome> {
  if (location.path.endsWith('.tf.json'))
    throw new CodeRefusal(`${location.path} is Terraform JSON; Setpoint edits .tf files`);
  const module = await TerraformModule.load(codeTree, location.path, location.tfvars);
  try {
    const file = module.main;
    const context: HclEditContext = {
      module,
      edits: new FileEdits(),
      unit: indentUnit(file.text),
      eol: lineEnding(file.text),
    };
    const found: (HclBlockNode | null)[] = [];
    for (const [index, resourceEdit] of edit.resources.entries()) {
      const resource = findResource(file, resourceEdit, found, index === 0 ? location.resource : undefined);
      found.push(resource);
      if (!resource) {
        const missing = resourceEdit.whenMissing ?? 'refuse';
        if (missing === 'skip') continue;
        const first = found[0];
        if (missing === 'refuse' || !first)
          throw new CodeRefusal(
            `${location.path} has no ${resourceEdit.type} resource${'equals' in resourceEdit.match ? ` with ${resourceEdit.match.attribute} = "${resourceEdit.match.equals}"` : ''}; link the file that defines it`,
          );
        const name = `${first.labels[1]}${missing.append.suffix}`;
        const fields = Object.fromEntries(
          Object.entries(missing.append.fields).map(([field, value]) => {
            if (typeof value !== 'object' || value === null || !('reference' in value)) return [field, value];
            const target = found[value.reference.resource];
            if (!target) throw new CodeRefusal(`${field} references a resource the edit did not find`);
            return [field, { expression: `${address(target)}.${value.reference.attribute}` }];
          }),
        );
        const lines = renderBlock(context, `resource "${resourceEdit.type}" "${name}"`, fields, '');
        context.edits.add(file.path, file.text, {
          start: first.node.endIndex,
          end: first.node.endIndex,
          text: `${context.eol}${context.eol}${lines.join(context.eol)}`,
        });
        context.edits.note(`added resource ${resourceEdit.type}.${name}`);
        continue;
      }
      const target = descend(file, resource, resourceEdit.path, address(resource));
      editBlock(context, file, target.block, resourceEdit.fields, target.what);
    }
    const outcome = context.edits.outcome();
    for (const change of outcome.changes) await assertParsesAsHcl(change.path, change.after);
    return outcome;
  } finally {
    module.dispose();
  }
}
