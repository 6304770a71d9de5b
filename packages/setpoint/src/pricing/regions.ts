import type { Cloud } from './schema.js';

/**
 * Where a price is looked up when neither the run nor its workspace names a region: each cloud's
 * largest region, the one list prices are usually quoted for.
 */
export const defaultRegions: Record<Cloud, string> = { aws: 'us-east-1', azure: 'eastus' };
