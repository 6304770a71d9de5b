import { z } from 'zod';
import { cloudSchema, dbuSkuSchema, planSchema } from './schema.js';

const percent = z.number().min(0).max(100);

/**
 * An organization's negotiated prices. Cloud discounts apply to every cloud charge (VMs on-demand and spot,
 * disks, EMR fee) except custom instance prices, which are taken as net prices. A custom $/DBU replaces the
 * list price; otherwise the DBU discount applies to it.
 */
export const organizationPricingSchema = z
  .object({
    cloudDiscountPercent: z
      .object({ aws: percent.optional(), azure: percent.optional() })
      .strict()
      .default({}),
    dbuDiscountPercent: percent.optional(),
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
