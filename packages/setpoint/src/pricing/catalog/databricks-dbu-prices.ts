/**
 * Databricks list prices in $ per DBU, by cloud × plan × SKU, valid in every region unless an import says
 * otherwise. Photon SKUs cost the same per DBU; Photon costs more through more DBUs per node-hour.
 *
 * Sources: Databricks pricing pages as tabulated by LAKEMETER `dbu-rates.json` (AWS Premium 0.15 / 0.10 /
 * 0.55, Enterprise 0.20 / 0.13 / 0.65; Azure Premium 0.30 / 0.22 / 0.55), cross-checked with the
 * spark-rapids-tools catalogs (AWS 0.15, Azure 0.30 for Premium Jobs Compute) and Overwatch defaults. The
 * legacy Standard plan: AWS 0.10 / 0.07 / 0.40, Azure 0.15 / 0.07 / 0.40. Azure has no Enterprise plan.
 */
export const databricksDbuPriceDate = '2024-07-01';

/** cloud, plan, Jobs Compute, Jobs Light, All-Purpose ($/DBU) */
export type DbuPriceRow = readonly [
  cloud: 'aws' | 'azure',
  plan: 'standard' | 'premium' | 'enterprise',
  jobs: number,
  jobsLight: number,
  allPurpose: number,
];

export const databricksDbuPrices: readonly DbuPriceRow[] = [
  ['aws', 'standard', 0.1, 0.07, 0.4],
  ['aws', 'premium', 0.15, 0.1, 0.55],
  ['aws', 'enterprise', 0.2, 0.13, 0.65],
  ['azure', 'standard', 0.15, 0.07, 0.4],
  ['azure', 'premium', 0.3, 0.22, 0.55],
];

/**
 * When no source publishes a node type's Photon DBU rate, Photon DBU/h = standard DBU/h × this factor.
 * 2.0 is the factor public benchmarks and the seed analysis report; Overwatch uses 2.9 for Photon jobs
 * clusters (organizations can set their own through the pricing overrides).
 */
export const defaultPhotonDbuMultiplier = 2;
