import { z } from 'zod';

/**
 * External price formats Setpoint imports. Only the fields Setpoint reads are declared; everything else
 * in these documents passes through unchecked.
 */

const awsPriceDimensionSchema = z.looseObject({
  unit: z.string(),
  pricePerUnit: z.record(z.string(), z.string()),
});

const awsTermSchema = z.looseObject({
  effectiveDate: z.string().optional(),
  priceDimensions: z.record(z.string(), awsPriceDimensionSchema),
});

/** AWS Price List bulk offer file (`…/offers/v1.0/aws/<ServiceCode>/current/<region>/index.json`). */
export const awsOfferSchema = z.looseObject({
  offerCode: z.string(),
  publicationDate: z.string(),
  products: z.record(
    z.string(),
    z.looseObject({
      sku: z.string(),
      productFamily: z.string().optional(),
      attributes: z.record(z.string(), z.string()),
    }),
  ),
  terms: z.looseObject({
    OnDemand: z.record(z.string(), z.record(z.string(), awsTermSchema)).optional(),
  }),
});
export type AwsOffer = z.infer<typeof awsOfferSchema>;

/** One item of the Azure Retail Prices API (`https://prices.azure.com/api/retail/prices`). */
export const azureRetailItemSchema = z.looseObject({
  currencyCode: z.string(),
  retailPrice: z.number(),
  armRegionName: z.string(),
  meterName: z.string(),
  productName: z.string(),
  skuName: z.string(),
  armSkuName: z.string().optional().default(''),
  serviceName: z.string(),
  unitOfMeasure: z.string(),
  type: z.string(),
  effectiveStartDate: z.string(),
});
export type AzureRetailItem = z.infer<typeof azureRetailItemSchema>;

export const azureRetailPageSchema = z.looseObject({
  Items: z.array(azureRetailItemSchema),
  NextPageLink: z.string().nullable().optional(),
});
export type AzureRetailPage = z.infer<typeof azureRetailPageSchema>;

const numeric = z.union([
  z.number(),
  z
    .string()
    .regex(/^\s*\d+(\.\d+)?\s*$/)
    .transform(Number),
]);

/** One row of the Databricks pricing-calculator JSON (`…/data/pricing/{AWS,Azure}.json`). */
export const databricksCalculatorRowSchema = z.looseObject({
  instance: z.string(),
  compute: z.string(),
  plan: z.string(),
  dburate: numeric,
  hourrate: numeric,
  region: z.string().optional(),
});
export type DatabricksCalculatorRow = z.infer<typeof databricksCalculatorRowSchema>;

export const databricksCalculatorSchema = z.array(databricksCalculatorRowSchema);

/** Output of `aws ec2 describe-spot-price-history --output json` (EC2 `DescribeSpotPriceHistory`). */
export const awsSpotPriceHistorySchema = z.looseObject({
  SpotPriceHistory: z.array(
    z.looseObject({
      AvailabilityZone: z.string(),
      InstanceType: z.string(),
      ProductDescription: z.string(),
      SpotPrice: z.string().regex(/^\d+(\.\d+)?$/),
      Timestamp: z.string(),
    }),
  ),
});
export type AwsSpotPriceHistory = z.infer<typeof awsSpotPriceHistorySchema>;
