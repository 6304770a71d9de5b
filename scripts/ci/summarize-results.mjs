#!/usr/bin/env node
// Sums Vitest's JSON report and pytest's JUnit XML reports (one per pytest run) into the closing line
// "N passed, N failed, N skipped".
// Exits 1 when anything failed or a report is missing (a runner that crashed reported nothing).
import { existsSync, readFileSync } from 'node:fs';

const [vitestPath, ...junitPaths] = process.argv.slice(2);
let passed = 0;
let failed = 0;
let skipped = 0;
let missing = false;

if (vitestPath && existsSync(vitestPath)) {
  const report = JSON.parse(readFileSync(vitestPath, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  for (const file of report.testResults ?? []) {
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed += 1;
  }
} else {
  console.error(`summary: no Vitest report at ${vitestPath}`);
  missing = true;
}

if (junitPaths.length === 0) {
  console.error('summary: no pytest report given');
  missing = true;
}
for (const junitPath of junitPaths) {
  if (!existsSync(junitPath)) {
    console.error(`summary: no pytest report at ${junitPath}`);
    missing = true;
    continue;
  }
  const xml = readFileSync(junitPath, 'utf8');
  const suite = /<testsuite\b[^>]*>/.exec(xml)?.[0] ?? '';
  const attribute = (name) => Number(new RegExp(`\\b${name}="(\\d+)"`).exec(suite)?.[1] ?? 0);
  const pyFailed = attribute('failures') + attribute('errors');
  const pySkipped = attribute('skipped');
  failed += pyFailed;
  skipped += pySkipped;
  passed += attribute('tests') - pyFailed - pySkipped;
}

console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || missing ? 1 : 0);
