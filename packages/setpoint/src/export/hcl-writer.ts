/** Just enough HCL writing for Terraform blocks: attributes, nested blocks, lists and comments. */
export type HclValue = string | number | boolean | HclRaw | HclValue[];

/** An expression written as-is (a reference such as `job_cluster[0].new_cluster[0].num_workers`). */
export interface HclRaw {
  raw: string;
}

export interface HclBlock {
  type: string;
  labels?: string[];
  comments?: string[];
  attributes?: [string, HclValue][];
  blocks?: HclBlock[];
}

/** A quoted HCL string: JSON's escapes, and a template marker in a literal string doubled. */
export function hclQuote(text: string): string {
  // function replacers avoid `$$` meaning `$`
  return JSON.stringify(text).replace(/([$%])\{/g, (_match, marker: string) => `${marker}${marker}{`);
}

function formatValue(value: HclValue, indent: string): string {
  if (typeof value === 'string') return hclQuote(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = `${indent}  `;
    return `[\n${value.map((item) => `${inner}${formatValue(item, inner)},`).join('\n')}\n${indent}]`;
  }
  return value.raw;
}

export function writeHclBlock(block: HclBlock, indent = ''): string {
  const lines: string[] = [];
  for (const comment of block.comments ?? []) lines.push(`${indent}# ${comment}`);
  const labels = (block.labels ?? []).map(hclQuote).join(' ');
  lines.push(`${indent}${block.type}${labels ? ` ${labels}` : ''} {`);
  const inner = `${indent}  `;
  const attributes = block.attributes ?? [];
  const width = Math.max(0, ...attributes.map(([name]) => name.length));
  for (const [name, value] of attributes)
    lines.push(`${inner}${name.padEnd(width)} = ${formatValue(value, inner)}`);
  for (const child of block.blocks ?? []) {
    if (attributes.length > 0 || child !== block.blocks?.[0]) lines.push('');
    lines.push(writeHclBlock(child, inner));
  }
  lines.push(`${indent}}`);
  return lines.join('\n');
}

/** Turns a job or workload name into a valid Terraform identifier. */
export function terraformResourceName(name: string): string {
  const cleaned = name
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[a-z_]/.test(cleaned) ? cleaned : `job_${cleaned || 'unnamed'}`;
}
