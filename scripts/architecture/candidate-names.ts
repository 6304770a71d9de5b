/**
 * Candidates are facts, never names to parse: the optimizer's candidate carries its instance type, engine
 * and storage as fields, and its id is a key written from a shape's fields. Reading one of them as text
 * (a string method called on it, or a regular expression run over it) is how an encoded name comes back:
 * `candidate.instanceType.startsWith('photon-')`, `candidateId.split('|')`. The one reader of a
 * configuration's name is the translation of a sweep dataset's cell (`optimizer/configuration-name.ts`).
 */
import ts from 'typescript';

export interface CandidateNameRead {
  line: number;
  /** What was read, as written ("candidate.instanceType.startsWith"). */
  text: string;
}

/** Names of a candidate's identity: its instance type (`Candidate.instanceType`) and its id. */
const candidateNames = new Set(['instanceType', 'candidateId']);
/** `<something named candidate>.id` is a candidate's id too. */
const candidateObject = /candidate/i;

const stringMethods = new Set([
  'split',
  'startsWith',
  'endsWith',
  'includes',
  'indexOf',
  'lastIndexOf',
  'slice',
  'substring',
  'substr',
  'match',
  'matchAll',
  'replace',
  'replaceAll',
  'search',
  'charAt',
  'at',
]);
const regexpMethods = new Set(['exec', 'test']);

/** The expression without `!`, parentheses and `as` casts. */
function bare(node: ts.Expression): ts.Expression {
  let current = node;
  while (
    ts.isNonNullExpression(current) ||
    ts.isParenthesizedExpression(current) ||
    ts.isAsExpression(current)
  )
    current = current.expression;
  return current;
}

/** Whether an expression is a candidate's instance type or id. */
function namesCandidate(node: ts.Expression): boolean {
  const expression = bare(node);
  if (ts.isIdentifier(expression)) return candidateNames.has(expression.text);
  if (!ts.isPropertyAccessExpression(expression)) return false;
  const name = expression.name.text;
  if (candidateNames.has(name)) return true;
  if (name !== 'id') return false;
  const owner = bare(expression.expression);
  const ownerName = ts.isIdentifier(owner)
    ? owner.text
    : ts.isPropertyAccessExpression(owner)
      ? owner.name.text
      : '';
  return candidateObject.test(ownerName);
}

/** Where a file reads a candidate's instance type or id as text. */
export function candidateNameReadsIn(file: string, text: string): CandidateNameRead[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const reads: CandidateNameRead[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const method = node.expression.name.text;
      const receiver = node.expression.expression;
      const parsed =
        (stringMethods.has(method) && namesCandidate(receiver)) ||
        (regexpMethods.has(method) && node.arguments.some((argument) => namesCandidate(argument)));
      if (parsed)
        reads.push({
          line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
          text: node.expression.getText(source),
        });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return reads;
}
