/** The Node.js release lines Setpoint supports; the first is past its end of life and kept for now. */
export const supportedNodeMajors = [20, 22, 24] as const;

/**
 * What a server says at start about the Node.js it runs on, or null when there is nothing to say: Node 20
 * reached its end of life in April 2026 and AWS SDK releases after January 2027 need 22 (the SDK's own
 * warning is switched off by `bin/setpoint.js`, so this line says it once, in Setpoint's words).
 */
export function nodeSupportNotice(version: string): string | null {
  const major = Number(version.replace(/^v/, '').split('.')[0]);
  if (major === 20)
    return `Node.js ${version} is past its end of life (April 2026); Setpoint runs on it for now, but AWS SDK releases after January 2027 need Node.js 22: move to 22 or 24`;
  if (!supportedNodeMajors.includes(major as (typeof supportedNodeMajors)[number]))
    return `Node.js ${version} is not a release line Setpoint is tested on (${supportedNodeMajors.join(', ')})`;
  return null;
}
