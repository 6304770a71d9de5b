import { errorKinds } from '@setpoint/foundation/errors';
import { describe, expect, it } from 'vitest';
import { exitCodeHelp, rootHelpText } from './help-text.js';

describe('documented exit codes', () => {
  it('explain every exit code an error kind can produce, once each', () => {
    const documented = exitCodeHelp.map(([code]) => code);
    const produced = new Set(Object.values(errorKinds).map((kind) => kind.exitCode));

    expect(new Set(documented).size).toBe(documented.length);
    for (const code of produced) expect(documented).toContain(code);
    for (const [code, meaning] of exitCodeHelp) expect(rootHelpText).toContain(`  ${code}  ${meaning}`);
  });
});
