import path from 'node:path/posix';
import { CodeRefusal, type CodeTree, where } from '../code-edit.js';
import { firstSyntaxError, parseSyntax, type SyntaxNode, type SyntaxTree } from '../syntax-tree.js';
import { attributesIn, blocksIn, fileBody, findAttribute, referencesIn } from './hcl-syntax.js';

export interface HclFile {
  path: string;
  text: string;
  tree: SyntaxTree;
  body: SyntaxNode | null;
}

/** Where an input variable's value is set: a `.tfvars` entry, or its `default`. */
export interface VariableSetting {
  file: HclFile;
  attribute: SyntaxNode;
  /** In words for notes and refusals, e.g. "var.workers's default in variables.tf". */
  describe: string;
}

async function parseHcl(codeTree: CodeTree, filePath: string): Promise<HclFile | null> {
  const text = await codeTree.read(filePath);
  if (text === null) return null;
  const tree = await parseSyntax('hcl', text);
  const error = firstSyntaxError(tree.rootNode);
  if (error) {
    tree.delete();
    throw new CodeRefusal(
      `${filePath} does not parse as HCL (at ${error}); Setpoint edits only files that parse`,
    );
  }
  return { path: filePath, text, tree, body: fileBody(tree.rootNode) };
}

/**
 * A Terraform module as Terraform reads it: every `.tf` file of the linked file's directory (variables
 * and locals may live in any of them) and the `.tfvars` files that set its variables, in Terraform's
 * precedence: `terraform.tfvars`, then `*.auto.tfvars` in name order, then the file the link names.
 */
export class TerraformModule {
  private constructor(
    readonly main: HclFile,
    readonly files: HclFile[],
    readonly tfvars: HclFile[],
    readonly ignoredTfvars: string[],
  ) {}

  static async load(codeTree: CodeTree, mainPath: string, namedTfvars?: string): Promise<TerraformModule> {
    const directory = path.dirname(mainPath) === '.' ? '' : path.dirname(mainPath);
    const names = await codeTree.list(directory);
    const join = (name: string) => (directory ? `${directory}/${name}` : name);
    const opened: HclFile[] = [];
    try {
      const main = await parseHcl(codeTree, mainPath);
      if (!main) throw new CodeRefusal(`${mainPath} is not in the repository`);
      opened.push(main);
      for (const name of names.filter((entry) => entry.endsWith('.tf')).sort()) {
        if (join(name) === mainPath) continue;
        const file = await parseHcl(codeTree, join(name));
        if (file) opened.push(file);
      }
      const tfvarsPaths = [
        ...names.filter((name) => name === 'terraform.tfvars'),
        ...names.filter((name) => name.endsWith('.auto.tfvars')).sort(),
      ].map(join);
      if (namedTfvars && !tfvarsPaths.includes(namedTfvars)) tfvarsPaths.push(namedTfvars);
      const tfvars: HclFile[] = [];
      for (const tfvarsPath of tfvarsPaths) {
        const file = await parseHcl(codeTree, tfvarsPath);
        if (!file && tfvarsPath === namedTfvars)
          throw new CodeRefusal(`the linked variables file ${namedTfvars} is not in the repository`);
        if (file) {
          opened.push(file);
          tfvars.push(file);
        }
      }
      const ignoredTfvars = names.filter((name) => /\.(auto\.)?tfvars\.json$/.test(name)).map(join);
      return new TerraformModule(
        main,
        opened.filter((file) => file.path.endsWith('.tf')),
        tfvars,
        ignoredTfvars,
      );
    } catch (error) {
      for (const file of opened) file.tree.delete();
      throw error;
    }
  }

  dispose(): void {
    for (const file of [...this.files, ...this.tfvars]) file.tree.delete();
  }

  /** Every use of `var.<name>` or `local.<name>` in the module's `.tf` files. */
  uses(kind: 'var' | 'local', name: string): { file: HclFile; node: SyntaxNode }[] {
    return this.files.flatMap((file) =>
      file.body
        ? referencesIn(file.body)
            .filter((reference) => reference.path[0] === kind && reference.path[1] === name)
            .map((reference) => ({ file, node: reference.node }))
        : [],
    );
  }

  /** Where the variable's value comes from: the last `.tfvars` that sets it, else its default. */
  variableSetting(name: string): VariableSetting | { missing: string } {
    for (const file of [...this.tfvars].reverse()) {
      const attribute = findAttribute(file.body, name);
      if (attribute) return { file, attribute, describe: `var.${name} in ${file.path}` };
    }
    for (const file of this.files) {
      const variable = blocksIn(file.body).find(
        (block) => block.type === 'variable' && block.labels[0] === name,
      );
      if (!variable) continue;
      const fallback = findAttribute(variable.body, 'default');
      if (fallback) return { file, attribute: fallback, describe: `var.${name}'s default in ${file.path}` };
      return {
        missing: `var.${name} (${where(file.path, variable.node.startPosition.row)}) has no default and no .tfvars entry Setpoint can see: it is a module input set by the module's caller, or given on the command line; link the .tfvars file that sets it, or set it by hand`,
      };
    }
    return { missing: `var.${name} is not declared in the module's .tf files` };
  }

  localSetting(name: string): VariableSetting | { missing: string } {
    for (const file of this.files) {
      for (const locals of blocksIn(file.body).filter((block) => block.type === 'locals')) {
        const attribute = attributesIn(locals.body).find((entry) => entry.child(0)?.text === name);
        if (attribute) return { file, attribute, describe: `local.${name} in ${file.path}` };
      }
    }
    return { missing: `local.${name} is not defined in the module's .tf files` };
  }
}
