import type { SimRunRecord } from './run-sim-bench.js';

const width = 640;
const height = 400;
const margin = { left: 64, right: 24, top: 40, bottom: 56 };
const plotWidth = width - margin.left - margin.right;
const plotHeight = height - margin.top - margin.bottom;

function escapeXml(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

function frame(title: string, xLabel: string, yLabel: string, body: string[]): string {
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="15">${escapeXml(title)}</text>`,
    `<line x1="${margin.left}" y1="${margin.top + plotHeight}" x2="${margin.left + plotWidth}" y2="${margin.top + plotHeight}" stroke="black"/>`,
    `<line x1="${margin.left}" y1="${margin.top}" x2="${margin.left}" y2="${margin.top + plotHeight}" stroke="black"/>`,
    `<text x="${margin.left + plotWidth / 2}" y="${height - 14}" text-anchor="middle">${escapeXml(xLabel)}</text>`,
    `<text transform="translate(16 ${margin.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeXml(yLabel)}</text>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');
}

function scale(domainLow: number, domainHigh: number, rangeLow: number, rangeHigh: number) {
  const span = domainHigh - domainLow || 1;
  return (value: number) => rangeLow + ((value - domainLow) / span) * (rangeHigh - rangeLow);
}

/** Ticks at every multiple of `step` between low and high. */
function xTicks(
  low: number,
  high: number,
  step: number,
  x: (value: number) => number,
  format: (value: number) => string,
) {
  const ticks: string[] = [];
  for (let i = Math.ceil(low / step - 1e-9); i * step <= high + 1e-9; i++) {
    const value = i * step;
    const px = x(value).toFixed(1);
    ticks.push(
      `<line x1="${px}" y1="${margin.top + plotHeight}" x2="${px}" y2="${margin.top + plotHeight + 5}" stroke="black"/>`,
      `<text x="${px}" y="${margin.top + plotHeight + 20}" text-anchor="middle">${escapeXml(format(value))}</text>`,
    );
  }
  return ticks;
}

function yTicks(low: number, high: number, y: (value: number) => number, format: (value: number) => string) {
  const ticks: string[] = [];
  for (let i = 0; i <= 4; i++) {
    const value = low + ((high - low) * i) / 4;
    const py = y(value).toFixed(1);
    ticks.push(
      `<line x1="${margin.left - 5}" y1="${py}" x2="${margin.left}" y2="${py}" stroke="black"/>`,
      `<text x="${margin.left - 8}" y="${py}" text-anchor="end" dominant-baseline="middle">${escapeXml(format(value))}</text>`,
    );
  }
  return ticks;
}

const percent = (value: number) => `${Math.round(value * 100)}%`;

/** Histogram of the one-shot cost change: the first recommended run's cost against the cold start's. */
export function oneShotCostChangeSvg(records: readonly SimRunRecord[]): string {
  const changes = records
    .filter((record) => record.runIndex === 1 && record.completed)
    .map((record) => record.costUsd / record.coldCostUsd - 1);
  // Bins are centred on multiples of 10%, so "no change" gets a bin of its own.
  const binWidth = 0.1;
  const first = Math.min(-8, ...changes.map((change) => Math.round(change / binWidth)));
  const last = Math.max(4, ...changes.map((change) => Math.round(change / binWidth)));
  const counts = new Array<number>(last - first + 1).fill(0);
  for (const change of changes) {
    const index = Math.round(change / binWidth) - first;
    counts[index] = (counts[index] ?? 0) + 1;
  }
  const low = (first - 0.5) * binWidth;
  const high = (last + 0.5) * binWidth;
  const maxCount = Math.max(1, ...counts);
  const x = scale(low, high, margin.left, margin.left + plotWidth);
  const y = scale(0, maxCount, margin.top + plotHeight, margin.top);
  const bars = counts.map((count, i) => {
    const centre = (first + i) * binWidth;
    const left = x(centre - binWidth / 2);
    const right = x(centre + binWidth / 2);
    const fill = first + i < 0 ? '#2b8a3e' : first + i > 0 ? '#c92a2a' : '#868e96';
    return `<rect x="${(left + 1).toFixed(1)}" y="${y(count).toFixed(1)}" width="${(right - left - 2).toFixed(1)}" height="${(y(0) - y(count)).toFixed(1)}" fill="${fill}"/>`;
  });
  const zero = x(0).toFixed(1);
  return frame(
    `One-shot cost change vs cold start (${changes.length} runs)`,
    'cost change of the first recommended run',
    'runs',
    [
      ...bars,
      `<line x1="${zero}" y1="${margin.top}" x2="${zero}" y2="${margin.top + plotHeight}" stroke="#555" stroke-dasharray="4 3"/>`,
      ...xTicks(low, high, 0.2, x, percent),
      ...yTicks(0, maxCount, y, (value) => value.toFixed(1).replace(/\.0$/, '')),
    ],
  );
}

/** Prediction error of each recommended run against how much its cluster's cores changed. */
export function predictionErrorSvg(records: readonly SimRunRecord[]): string {
  const points = records
    .filter((record) => record.predictedRuntimeS !== null && record.coresRatio !== null && record.completed)
    .map((record) => ({
      x: Math.log2(record.coresRatio as number),
      y: ((record.predictedRuntimeS as number) - record.runtimeS) / record.runtimeS,
    }));
  const xLow = Math.min(-3, ...points.map((point) => Math.floor(point.x)));
  const xHigh = Math.max(3, ...points.map((point) => Math.ceil(point.x)));
  const yLimit = Math.min(1, Math.max(0.2, ...points.map((point) => Math.abs(point.y))));
  const x = scale(xLow, xHigh, margin.left, margin.left + plotWidth);
  const y = scale(-yLimit, yLimit, margin.top + plotHeight, margin.top);
  const clamp = (value: number) => Math.max(-yLimit, Math.min(yLimit, value));
  const dots = points.map(
    (point) =>
      `<circle cx="${x(point.x).toFixed(1)}" cy="${y(clamp(point.y)).toFixed(1)}" r="3" fill="#1c7ed6" fill-opacity="0.6"/>`,
  );
  const zero = y(0).toFixed(1);
  return frame(
    `Prediction error vs instance-size change (${points.length} runs)`,
    'log2(total cores of the run / cores of the run before)',
    '(predicted − actual) / actual runtime',
    [
      `<line x1="${margin.left}" y1="${zero}" x2="${margin.left + plotWidth}" y2="${zero}" stroke="#555" stroke-dasharray="4 3"/>`,
      ...dots,
      ...xTicks(xLow, xHigh, 1, x, (value) => value.toFixed(0)),
      ...yTicks(-yLimit, yLimit, y, percent),
    ],
  );
}
