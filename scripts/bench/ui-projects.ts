/**
 * `npm run bench:ui`: seeds 5,000 projects into a fresh `setpoint serve` through the API, then measures
 * in Chromium the time to the first project row painted (noted by the page itself, and as the test
 * driver first sees it), to the whole list loaded, and to scroll to the last row (with frame times). Needs `npm run build` and /usr/bin/chromium.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import path from 'node:path';
import { median } from '@setpoint/foundation/statistics';
import { connectSeedClient, seedProjects } from '../../tests/e2e/dashboard-seed.js';
import { launchChromium } from '../../tests/support/browser.js';
import { spawnSetpoint } from '../../tests/support/spawn-server.js';

const projectCount = Number(process.env.BENCH_UI_PROJECTS ?? 5000);
const rounds = Number(process.env.BENCH_UI_ROUNDS ?? 5);

const middle = (values: number[]) => median(values) ?? Number.NaN;

const dataDir = mkdtempSync(path.join(tmpdir(), 'setpoint-bench-ui-'));
const server = await spawnSetpoint(
  ['serve', '--port', '0', '--data-dir', dataDir],
  /listening on (http:\/\/\S+)/,
  {
    SETPOINT_LOG_LEVEL: 'warn',
    SETPOINT_RATE_LIMIT_PER_MINUTE: '1000000',
  },
);
try {
  const client = await connectSeedClient(server.url, dataDir);
  const seedStart = performance.now();
  const names = Array.from({ length: projectCount }, (_, index) => `job-${String(index).padStart(5, '0')}`);
  await seedProjects(
    client,
    names,
    (index) => ({ slaMinutes: 30 + (index % 90), autoApply: index % 7 === 0 }),
    16,
  );
  const seedSeconds = (performance.now() - seedStart) / 1000;

  const browser = await launchChromium();
  const context = await browser.newContext({
    extraHTTPHeaders: { authorization: `Bearer ${client.token}` },
    viewport: { width: 1440, height: 900 },
  });
  // The page itself notes when the first project row enters the DOM and when the frame showing it
  // is drawn, so the figure does not include the test driver's polling on a busy machine.
  await context.addInitScript(() => {
    const marks = { inserted: 0, painted: 0 };
    Object.assign(window, { __firstRow: marks });
    const observer = new MutationObserver(() => {
      if (marks.inserted || !document.querySelector('[data-testid="project-row"]')) return;
      marks.inserted = performance.now();
      observer.disconnect();
      requestAnimationFrame(() => setTimeout(() => (marks.painted = performance.now()), 0));
    });
    observer.observe(document, { childList: true, subtree: true });
  });
  const firstRow: number[] = [];
  const firstPaint: number[] = [];
  const allLoaded: number[] = [];
  const scrollEnd: number[] = [];
  const p95Frame: number[] = [];
  const meanFrame: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const page = await context.newPage();
    await page.goto(`${server.url}/projects`, { waitUntil: 'commit' });
    await page.waitForSelector('[data-testid="project-row"]');
    firstRow.push(await page.evaluate(() => performance.now()));
    firstPaint.push(
      await page.evaluate(async () => {
        const marks = (window as unknown as { __firstRow: { painted: number } }).__firstRow;
        while (!marks.painted) await new Promise(requestAnimationFrame);
        return marks.painted;
      }),
    );
    if (process.env.BENCH_UI_TRACE) {
      const entries = await page.evaluate(() =>
        performance
          .getEntriesByType('resource')
          .map((entry) => entry as PerformanceResourceTiming)
          .map((entry) => `${Math.round(entry.startTime)}–${Math.round(entry.responseEnd)} ${entry.name}`),
      );
      process.stderr.write(`${entries.join('\n')}\nfirst row at ${Math.round(firstRow.at(-1)!)} ms\n`);
    }
    await page.getByText(`${projectCount} projects`, { exact: true }).waitFor({ timeout: 120_000 });
    allLoaded.push(await page.evaluate(() => performance.now()));
    const lastName = names[names.length - 1]!;
    const scroll = await page.evaluate(async (expected) => {
      const scroller = document.querySelector<HTMLElement>('[data-testid="projects-scroller"]')!;
      // Jump to the end (End key, dragging the scrollbar down), then wait for the last row to be drawn.
      const jumpStarted = performance.now();
      scroller.scrollTop = scroller.scrollHeight;
      // (no helper functions in here: the bundler would wrap them in a name helper the page lacks)
      while (
        ![...document.querySelectorAll('[data-testid="project-row"] td[data-column="name"]')].some(
          (cell) => cell.textContent === expected,
        )
      ) {
        await new Promise(requestAnimationFrame);
      }
      await new Promise(requestAnimationFrame);
      const jumpMs = performance.now() - jumpStarted;
      // Then scroll back to the top a screenful per frame, timing every frame.
      const frames: number[] = [];
      let previous = performance.now();
      while (scroller.scrollTop > 0) {
        scroller.scrollTop -= scroller.clientHeight;
        await new Promise(requestAnimationFrame);
        const now = performance.now();
        frames.push(now - previous);
        previous = now;
      }
      frames.sort((a, b) => a - b);
      return {
        ms: jumpMs,
        p95Frame: frames[Math.floor(frames.length * 0.95)] ?? 0,
        meanFrame: frames.reduce((sum, frame) => sum + frame, 0) / Math.max(1, frames.length),
      };
    }, lastName);
    scrollEnd.push(scroll.ms);
    p95Frame.push(scroll.p95Frame);
    meanFrame.push(scroll.meanFrame);
    await page.close();
  }
  await browser.close();
  const result = {
    projects: projectCount,
    rounds,
    seedSeconds: Number(seedSeconds.toFixed(1)),
    firstRowPaintedMs: Math.round(middle(firstPaint)),
    firstRowSeenByDriverMs: Math.round(middle(firstRow)),
    allLoadedMs: Math.round(middle(allLoaded)),
    jumpToLastRowMs: Math.round(middle(scrollEnd)),
    scrollFrameMeanMs: Math.round(middle(meanFrame)),
    scrollFrameP95Ms: Math.round(middle(p95Frame)),
    firstRowPaintedSamplesMs: firstPaint.map(Math.round),
    firstRowSeenByDriverSamplesMs: firstRow.map(Math.round),
    machine: `${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`,
  };
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(
    `\n| projects | first row painted (ms) | first row seen by the driver (ms) | all ${projectCount} loaded (ms) | jump to last row (ms) | scroll frame mean / p95 (ms) |\n` +
      `| ---: | ---: | ---: | ---: | ---: | ---: |\n| ${projectCount} | ${result.firstRowPaintedMs} | ${result.firstRowSeenByDriverMs} | ${result.allLoadedMs} | ${result.jumpToLastRowMs} | ${result.scrollFrameMeanMs} / ${result.scrollFrameP95Ms} |\n`,
  );
} finally {
  await server.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
