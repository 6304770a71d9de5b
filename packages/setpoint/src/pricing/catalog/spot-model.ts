/**
 * Default spot discount model: the fraction of the on-demand price saved on spot, as a low / expected / high
 * range, used when no spot price history has been imported. These are Setpoint's modelling defaults
 * (typical savings reported by public spot advisors: 50–90%), not observed prices: every estimate using them
 * is labelled simulated.
 */
export const spotModelDate = '2024-07-01';

/** family (`*` = cloud default), savings low, expected, high */
export type SpotModelRow = readonly [family: string, low: number, expected: number, high: number];

export const awsSpotModel: readonly SpotModelRow[] = [
  ['*', 0.5, 0.65, 0.75],
  ['c4', 0.55, 0.7, 0.8],
  ['m4', 0.55, 0.7, 0.8],
  ['r4', 0.55, 0.7, 0.8],
  ['m5', 0.5, 0.62, 0.72],
  ['c5', 0.5, 0.6, 0.7],
  ['r5', 0.5, 0.64, 0.75],
  ['m6g', 0.45, 0.58, 0.7],
  ['m6gd', 0.45, 0.58, 0.7],
  ['m7g', 0.4, 0.55, 0.68],
  ['m7gd', 0.4, 0.55, 0.68],
  ['c7g', 0.4, 0.55, 0.68],
  ['r7g', 0.4, 0.55, 0.68],
  ['i3', 0.55, 0.7, 0.8],
  ['i3en', 0.5, 0.65, 0.75],
  ['i4i', 0.45, 0.6, 0.72],
  ['x2iedn', 0.35, 0.5, 0.65],
  ['x2idn', 0.35, 0.5, 0.65],
];

export const azureSpotModel: readonly SpotModelRow[] = [['*', 0.5, 0.7, 0.85]];
