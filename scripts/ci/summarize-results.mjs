#!/usr/bin/env node
// Sums Vitest's JSON reports (*.json, one per Node.js the suite ran on) and pytest's JUnit XML reports
// (*.xml, one per pytest run) into the closing line "N passed, N failed, N skipped".
// Exits 1 when anything failed or a report is missing (a runner that crashed reported nothing).
import { existsSync, readFileSync } from 'node:fs';

const reports = process.argv.slice(2);
const vitestPaths = reports.filter((path) => path.endsWith('.json'));
const junitPaths = reports.filter((path) => path.endsWith('.xml'));
let passed = 0;
let failed = 0;
let skipped = 0;
let missing = false;

if (vitestPaths.length === 0) {
  console.error('summary: no Vitest report given');
  missing = true;
}
for (const vitestPath of vitestPaths) {
  if (!existsSync(vitestPath)) {
    console.error(`summary: no Vitest report at ${vitestPath}`);
    missing = true;
    continue;
  }
  const report = JSON.parse(readFileSync(vitestPath, 'utf8'));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
  for (const file of report.testResults ?? []) {
    if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) failed += 1;
  }
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
