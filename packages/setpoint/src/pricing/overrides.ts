import { z } from 'zod';
import { cloudSchema, dbuSkuSchema, planSchema } from './schema.js';

/**
 * An organization's custom prices in `<data-dir>/pricing/overrides.json`. A custom instance price or $/DBU
 * replaces the list price wherever Setpoint prices a node (run costs, estimates, the optimizer). Discounts are
 * not here: they are organization settings (`aws_discount_pct`, `azure_discount_pct`, `gcp_discount_pct`,
 * `dbu_discount_pct`), applied once, to the organization summary.
 */
export const organizationPricingSchema = z
  .object({
    customDbuPrices: z
      .array(
        z
          .object({
            cloud: cloudSchema,
            plan: planSchema.optional(),
            sku: dbuSkuSchema.optional(),
            usdPerDbu: z.number().nonnegative(),
          })
          .strict(),
      )
      .default([]),
    customInstancePrices: z
      .array(
        z
          .object({
            cloud: cloudSchema,
            region: z.string().min(1).optional(),
            instanceType: z.string().min(1),
            usdPerHour: z.number().nonnegative(),
          })
          .strict(),
      )
      .default([]),
    /** Photon DBU/h = standard DBU/h × this, for node types whose Photon rate no source publishes. */
    photonDbuMultiplier: z.number().positive().optional(),
  })
  .strict();

export type OrganizationPricing = z.infer<typeof organizationPricingSchema>;
export type OrganizationPricingInput = z.input<typeof organizationPricingSchema>;

export const noOrganizationPricing: OrganizationPricing = organizationPricingSchema.parse({});

/** Keys that held discounts before discounts became organization settings; named in the error that rejects them. */
export const movedDiscountKeys = ['cloudDiscountPercent', 'dbuDiscountPercent'] as const;
