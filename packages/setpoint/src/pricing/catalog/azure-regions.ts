/**
 * Azure regions Setpoint ships VM and disk prices for. westus2 is the sourced list price (azure-vms.ts);
 * eastus and eastus2 carry the same list prices for these series; westus and westeurope are Setpoint's
 * estimates (westus2 × a regional factor, basis `estimate`) until an Azure Retail Prices import replaces them.
 */
export interface AzureRegionPricing {
  factor: number;
  basis: 'list' | 'estimate';
}

export const azureRegionPricing: Readonly<Record<string, AzureRegionPricing>> = {
  westus2: { factor: 1, basis: 'list' },
  eastus: { factor: 1, basis: 'list' },
  eastus2: { factor: 1, basis: 'list' },
  westus: { factor: 1.1, basis: 'estimate' },
  westeurope: { factor: 1.15, basis: 'estimate' },
};
