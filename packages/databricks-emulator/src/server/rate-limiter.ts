/** Published per-workspace request limits (requests per second), keyed by the path after `/api/2.x`. */
const limitsPerSecond: Array<[RegExp, number]> = [
  [/^\/jobs\/runs\/get$/, 100],
  [/^\/jobs\/runs\/list$/, 30],
  [/^\/jobs\/runs\/submit$/, 35],
  [/^\/jobs\/run-now$/, 20],
  [/^\/jobs\/(create|get|list|reset)$/, 20],
  [/^\/jobs\/update$/, 10],
  [/^\/jobs\/runs\/get-output$/, 20],
  [/^\/dbfs\//, 30],
  [/^\/secrets\//, 1100 / 60],
  [/^\/workspace\/import$/, 30],
  [/^\/workspace\/list$/, 50],
];

/** Fixed one-second windows per endpoint; `scale` multiplies every limit (0 switches limiting off). */
export class RateLimiter {
  private readonly windows = new Map<string, { second: number; count: number }>();

  constructor(
    private readonly scale: number,
    private readonly realNow: () => number = Date.now,
  ) {}

  /** Returns the Retry-After seconds when the request is over the limit, otherwise undefined. */
  check(apiPath: string): number | undefined {
    if (this.scale <= 0) return undefined;
    const rule = limitsPerSecond.find(([pattern]) => pattern.test(apiPath));
    if (!rule) return undefined;
    const limit = Math.max(1, Math.floor(rule[1] * this.scale));
    const key = rule[0].source;
    const second = Math.floor(this.realNow() / 1000);
    const window = this.windows.get(key);
    if (!window || window.second !== second) {
      this.windows.set(key, { second, count: 1 });
      return undefined;
    }
    window.count += 1;
    return window.count > limit ? 1 : undefined;
  }
}
