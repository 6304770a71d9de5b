/**
 * The simulator's physical ground truth per node type. Setpoint's optimizer never sees these numbers:
 * it has to infer their effect from event logs and run times, which is what makes the Job Bank a test.
 */
export type Cloud = 'AWS' | 'Azure';
export type LocalDisk = 'nvme' | 'ssd' | 'none';

export interface NodeFamily {
  family: string;
  cloud: Cloud;
  category: 'General Purpose' | 'Memory Optimized' | 'Compute Optimized' | 'Storage Optimized';
  /** Relative single-core speed, m5 = 1. */
  cpuSpeed: number;
  /** Relative per-core memory bandwidth, m5 = 1; matters for scans and shuffles more than for arithmetic. */
  memoryBandwidth: number;
  memoryGibPerCore: number;
  localDisk: LocalDisk;
  /** Local disk throughput per core, GB/s (0 without local disk). */
  localDiskGbpsPerCore: number;
  localDiskGbPerCore: number;
  photonCapable: boolean;
  isGraviton: boolean;
  /** Spot interruptions per node-hour. */
  spotInterruptionsPerHour: number;
  spotPriceFraction: number;
  onDemandUsdPerCoreHour: number;
  dbuPerCoreHour: number;
}

export interface NodeSize {
  suffix: string;
  cores: number;
  /** Sustained network bandwidth of the node, Gbit/s. */
  networkGbps: number;
  /** Instance EBS bandwidth cap, GB/s. */
  ebsGbps: number;
}

export interface NodeType extends NodeFamily, NodeSize {
  nodeTypeId: string;
  memoryMb: number;
}

const awsSizes: NodeSize[] = [
  { suffix: 'xlarge', cores: 4, networkGbps: 1.25, ebsGbps: 0.11 },
  { suffix: '2xlarge', cores: 8, networkGbps: 2.5, ebsGbps: 0.22 },
  { suffix: '4xlarge', cores: 16, networkGbps: 5, ebsGbps: 0.44 },
  { suffix: '8xlarge', cores: 32, networkGbps: 10, ebsGbps: 0.85 },
];

/** The compute-optimized families skip 8xlarge: their next size up is 9xlarge. */
const computeOptimizedSizes: NodeSize[] = [
  ...awsSizes.slice(0, 3),
  { suffix: '9xlarge', cores: 36, networkGbps: 12, ebsGbps: 1.2 },
];

const aws = (family: string, spec: Omit<NodeFamily, 'family' | 'cloud'>): NodeFamily => ({
  family,
  cloud: 'AWS',
  ...spec,
});

const awsFamilies: NodeFamily[] = [
  aws('m5', {
    category: 'General Purpose',
    cpuSpeed: 1,
    memoryBandwidth: 1,
    memoryGibPerCore: 4,
    localDisk: 'none',
    localDiskGbpsPerCore: 0,
    localDiskGbPerCore: 0,
    photonCapable: true,
    isGraviton: false,
    spotInterruptionsPerHour: 0.06,
    spotPriceFraction: 0.38,
    onDemandUsdPerCoreHour: 0.048,
    dbuPerCoreHour: 0.1725,
  }),
  aws('m5d', {
    category: 'General Purpose',
    cpuSpeed: 1,
    memoryBandwidth: 1,
    memoryGibPerCore: 4,
    localDisk: 'nvme',
    localDiskGbpsPerCore: 0.09,
    localDiskGbPerCore: 37.5,
    photonCapable: true,
    isGraviton: false,
    spotInterruptionsPerHour: 0.06,
    spotPriceFraction: 0.38,
    onDemandUsdPerCoreHour: 0.0565,
    dbuPerCoreHour: 0.1725,
  }),
  aws('r5', {
    category: 'Memory Optimized',
    cpuSpeed: 1,
    memoryBandwidth: 1,
    memoryGibPerCore: 8,
    localDisk: 'none',
    localDiskGbpsPerCore: 0,
    localDiskGbPerCore: 0,
    photonCapable: true,
    isGraviton: false,
    spotInterruptionsPerHour: 0.08,
    spotPriceFraction: 0.35,
    onDemandUsdPerCoreHour: 0.063,
    dbuPerCoreHour: 0.225,
  }),
  aws('r5d', {
    category: 'Memory Optimized',
    cpuSpeed: 1,
    memoryBandwidth: 1,
    memoryGibPerCore: 8,
    localDisk: 'nvme',
    localDiskGbpsPerCore: 0.09,
    localDiskGbPerCore: 37.5,
    photonCapable: true,
    isGraviton: false,
    spotInterruptionsPerHour: 0.08,
    spotPriceFraction: 0.35,
    onDemandUsdPerCoreHour: 0.072,
    dbuPerCoreHour: 0.225,
  }),
  aws('c5', {
    category: 'Compute Optimized',
    cpuSpeed: 1.15,
    memoryBandwidth: 0.95,
    memoryGibPerCore: 2,
    localDisk: 'none',
    localDiskGbpsPerCore: 0,
    localDiskGbPerCore: 0,
    photonCapable: true,
    isGraviton: false,
    spotInterruptionsPerHour: 0.1,
    spotPriceFraction: 0.4,
    onDemandUsdPerCoreHour: 0.0425,
    dbuPerCoreHour: 0.15,
  }),
  aws('c5d', {
    category: 'Compute Optimized',
    cpuSpeed: 1.15,
    memoryBandwidth: 0.95,
    memoryGibPerCore: 2,
    localDisk: 'nvme',
    localDiskGbpsPerCore: 0.1,
    localDiskGbPerCore: 25,
    photonCapable: true,
    isGraviton: false,
    spotInterruptionsPerHour: 0.1,
    spotPriceFraction: 0.4,
    onDemandUsdPerCoreHour: 0.048,
    dbuPerCoreHour: 0.15,
  }),
  aws('i3', {
    category: 'Storage Optimized',
    cpuSpeed: 0.82,
    memoryBandwidth: 0.8,
    memoryGibPerCore: 7.625,
    localDisk: 'nvme',
    localDiskGbpsPerCore: 0.25,
    localDiskGbPerCore: 237.5,
    photonCapable: true,
    isGraviton: false,
    spotInterruptionsPerHour: 0.05,
    spotPriceFraction: 0.32,
    onDemandUsdPerCoreHour: 0.078,
    dbuPerCoreHour: 0.25,
  }),
  aws('m6gd', {
    category: 'General Purpose',
    cpuSpeed: 0.95,
    memoryBandwidth: 1.3,
    memoryGibPerCore: 4,
    localDisk: 'nvme',
    localDiskGbpsPerCore: 0.09,
    localDiskGbPerCore: 59,
    photonCapable: true,
    isGraviton: true,
    spotInterruptionsPerHour: 0.04,
    spotPriceFraction: 0.4,
    onDemandUsdPerCoreHour: 0.0452,
    dbuPerCoreHour: 0.1925,
  }),
  aws('r6gd', {
    category: 'Memory Optimized',
    cpuSpeed: 0.95,
    memoryBandwidth: 1.3,
    memoryGibPerCore: 8,
    localDisk: 'nvme',
    localDiskGbpsPerCore: 0.09,
    localDiskGbPerCore: 59,
    photonCapable: true,
    isGraviton: true,
    spotInterruptionsPerHour: 0.05,
    spotPriceFraction: 0.38,
    onDemandUsdPerCoreHour: 0.0576,
    dbuPerCoreHour: 0.225,
  }),
];

interface AzureType {
  id: string;
  family: string;
  cores: number;
}

const azureFamilies: Record<string, NodeFamily> = {
  DSv2: {
    family: 'DSv2',
    cloud: 'Azure',
    category: 'General Purpose',
    cpuSpeed: 0.85,
    memoryBandwidth: 0.85,
    memoryGibPerCore: 3.5,
    localDisk: 'ssd',
    localDiskGbpsPerCore: 0.03,
    localDiskGbPerCore: 7,
    photonCapable: false,
    isGraviton: false,
    spotInterruptionsPerHour: 0.08,
    spotPriceFraction: 0.3,
    onDemandUsdPerCoreHour: 0.0575,
    dbuPerCoreHour: 0.1875,
  },
  Ddsv5: {
    family: 'Ddsv5',
    cloud: 'Azure',
    category: 'General Purpose',
    cpuSpeed: 1.05,
    memoryBandwidth: 1.05,
    memoryGibPerCore: 4,
    localDisk: 'ssd',
    localDiskGbpsPerCore: 0.06,
    localDiskGbPerCore: 37.5,
    photonCapable: true,
    isGraviton: false,
    spotInterruptionsPerHour: 0.08,
    spotPriceFraction: 0.3,
    onDemandUsdPerCoreHour: 0.0565,
    dbuPerCoreHour: 0.1875,
  },
  Edsv5: {
    family: 'Edsv5',
    cloud: 'Azure',
    category: 'Memory Optimized',
    cpuSpeed: 1.05,
    memoryBandwidth: 1.05,
    memoryGibPerCore: 8,
    localDisk: 'ssd',
    localDiskGbpsPerCore: 0.06,
    localDiskGbPerCore: 37.5,
    photonCapable: true,
    isGraviton: false,
    spotInterruptionsPerHour: 0.09,
    spotPriceFraction: 0.28,
    onDemandUsdPerCoreHour: 0.072,
    dbuPerCoreHour: 0.25,
  },
  Fsv2: {
    family: 'Fsv2',
    cloud: 'Azure',
    category: 'Compute Optimized',
    cpuSpeed: 1.12,
    memoryBandwidth: 0.95,
    memoryGibPerCore: 2,
    localDisk: 'ssd',
    localDiskGbpsPerCore: 0.04,
    localDiskGbPerCore: 8,
    photonCapable: true,
    isGraviton: false,
    spotInterruptionsPerHour: 0.1,
    spotPriceFraction: 0.3,
    onDemandUsdPerCoreHour: 0.0423,
    dbuPerCoreHour: 0.1875,
  },
};

const azureTypes: AzureType[] = [
  { id: 'Standard_DS3_v2', family: 'DSv2', cores: 4 },
  { id: 'Standard_DS4_v2', family: 'DSv2', cores: 8 },
  { id: 'Standard_DS5_v2', family: 'DSv2', cores: 16 },
  { id: 'Standard_D4ds_v5', family: 'Ddsv5', cores: 4 },
  { id: 'Standard_D8ds_v5', family: 'Ddsv5', cores: 8 },
  { id: 'Standard_D16ds_v5', family: 'Ddsv5', cores: 16 },
  { id: 'Standard_E4ds_v5', family: 'Edsv5', cores: 4 },
  { id: 'Standard_E8ds_v5', family: 'Edsv5', cores: 8 },
  { id: 'Standard_E16ds_v5', family: 'Edsv5', cores: 16 },
  { id: 'Standard_F4s_v2', family: 'Fsv2', cores: 4 },
  { id: 'Standard_F8s_v2', family: 'Fsv2', cores: 8 },
  { id: 'Standard_F16s_v2', family: 'Fsv2', cores: 16 },
];

function azureSize(cores: number): NodeSize {
  const perCore = cores / 4;
  return { suffix: '', cores, networkGbps: 1.5 * perCore, ebsGbps: 0.12 * perCore };
}

function buildNodeTypes(): NodeType[] {
  const types: NodeType[] = [];
  for (const family of awsFamilies) {
    for (const size of family.category === 'Compute Optimized' ? computeOptimizedSizes : awsSizes) {
      types.push({
        ...family,
        ...size,
        nodeTypeId: `${family.family}.${size.suffix}`,
        memoryMb: Math.round(family.memoryGibPerCore * size.cores * 1024),
      });
    }
  }
  for (const azure of azureTypes) {
    const family = azureFamilies[azure.family]!;
    types.push({
      ...family,
      ...azureSize(azure.cores),
      nodeTypeId: azure.id,
      memoryMb: Math.round(family.memoryGibPerCore * azure.cores * 1024),
    });
  }
  return types;
}

export const nodeTypes: readonly NodeType[] = buildNodeTypes();

const byId = new Map(nodeTypes.map((type) => [type.nodeTypeId, type]));

export function findNodeType(nodeTypeId: string): NodeType | undefined {
  return byId.get(nodeTypeId);
}
