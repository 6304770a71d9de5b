import type { SetpointConfig } from '../config/schema.js';
import { shippedCatalog } from '../pricing/catalog/shipped-catalog.js';
import { loadImportedLayers, openPriceCatalog } from '../pricing/catalog-store.js';
import { CostEngineCoster } from '../projects/cost-engine-coster.js';
import { EventLogProfiler } from '../projects/eventlog-profiler.js';
import { OptimizerRecommender } from '../projects/optimizer-recommender.js';
import type { AnalysisPorts } from './compose-services.js';

/** The real engines behind the pipeline's ports. */
export async function defaultAnalysisPorts(config: SetpointConfig): Promise<AnalysisPorts> {
  const catalog = openPriceCatalog(config.dataDir);
  // Newest import first: the recommender takes the first entry it finds for a node type.
  const layers = [...loadImportedLayers(config.dataDir).reverse(), shippedCatalog];
  return {
    profiler: new EventLogProfiler(),
    coster: new CostEngineCoster(catalog),
    recommender: new OptimizerRecommender({
      catalog,
      nodeTypes: layers.flatMap((layer) => layer.instanceTypes),
    }),
  };
}
