import type { SetpointConfig } from '../config/schema.js';
import { openPriceCatalog } from '../pricing/catalog-store.js';
import { CostEngineCoster } from '../projects/cost-engine-coster.js';
import { EventLogProfiler } from '../projects/eventlog-profiler.js';
import { WhatIfBaselineRecommender } from '../projects/what-if-baseline-recommender.js';
import type { AnalysisPorts } from './compose-services.js';

/** The real engines behind the pipeline's ports. */
export async function defaultAnalysisPorts(config: SetpointConfig): Promise<AnalysisPorts> {
  return {
    profiler: new EventLogProfiler(),
    coster: new CostEngineCoster(openPriceCatalog(config.dataDir)),
    recommender: new WhatIfBaselineRecommender(),
  };
}
