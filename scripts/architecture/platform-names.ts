/**
 * Platform names as values in the core: a string literal that is an identifier, a key, a path or a job
 * kind naming a platform (`'emr'`, `'databricks.collect'`, `'/api/v1/emr/accounts'`, `'aws-databricks'`).
 * Words for people (help texts, labels: they have spaces or capitals) are not values, and they may name
 * the platform the user deals with.
 */
import ts from 'typescript';

export interface PlatformNameUse {
  line: number;
  text: string;
  platform: string;
}

/** A value-like string: lower-case letters, digits and the punctuation of keys, paths and kinds. */
const valueLike = /^[a-z0-9_.:/*-]+$/;

function isModuleSpecifier(node: ts.Node): boolean {
  const parent = node.parent;
  return (
    ts.isImportDeclaration(parent) ||
    ts.isExportDeclaration(parent) ||
    ts.isExternalModuleReference(parent) ||
    (ts.isCallExpression(parent) && parent.expression.kind === ts.SyntaxKind.ImportKeyword) ||
    (ts.isLiteralTypeNode(parent) && ts.isImportTypeNode(parent.parent))
  );
}

/** Where a file's string literals name one of `platforms` as a value. */
export function platformNamesIn(file: string, text: string, platforms: readonly string[]): PlatformNameUse[] {
  const naming = platforms.map((platform) => ({
    platform,
    pattern: new RegExp(`(^|[^a-z0-9])${platform}($|[^a-z0-9])`),
  }));
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const uses: PlatformNameUse[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isStringLiteral(node) ||
        ts.isNoSubstitutionTemplateLiteral(node) ||
        ts.isTemplateLiteralToken(node)) &&
      valueLike.test(node.text) &&
      !isModuleSpecifier(node)
    ) {
      const named = naming.find(({ pattern }) => pattern.test(node.text));
      if (named) {
        uses.push({
          line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
          text: node.text,
          platform: named.platform,
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

/**
 * Where a file names one of `platforms` at all: in a value, a word for people, an identifier or a
 * comment (`'emr'`, `'an EMR account'`, `isDatabricks`, `// like Databricks`). The files the document
 * lists as platform-neutral (the connection lifecycle) may not, whatever the reason.
 */
export function platformWordsIn(text: string, platforms: readonly string[]): PlatformNameUse[] {
  const naming = platforms.map((platform) => {
    const capitalised = `${platform[0]?.toUpperCase() ?? ''}${platform.slice(1)}`;
    return {
      platform,
      // a word starting with the name in any case, or the name capitalised inside an identifier (`isEmr`)
      start: new RegExp(`(?<![A-Za-z])${platform}`, 'i'),
      inside: new RegExp(`${capitalised}|${platform.toUpperCase()}`),
    };
  });
  const uses: PlatformNameUse[] = [];
  text.split('\n').forEach((line, index) => {
    const named = naming.find(({ start, inside }) => start.test(line) || inside.test(line));
    if (named) uses.push({ line: index + 1, text: line.trim(), platform: named.platform });
  });
  return uses;
}
