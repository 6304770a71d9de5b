/**
 * What an instance type's name says about its hardware, so the optimizer can reason about types it has
 * no measurements for (an unseen family, a newer generation, a disk layout): the family identity, the
 * series, the generation, the processor, local disks and a storage layout encoded in the name.
 *
 * Names understood: AWS (`c5n.2xlarge`, `m5ad.xlarge`, `r6gd.4xlarge`, `m7i-flex.large`), Azure
 * (`Standard_E8ds_v4`, `Standard_DS3_v2`, `Standard_F8s_v2`), GCP (`n2-highmem-8`), a storage layout
 * after `+` (`c4.2xlarge+ebs-slow-2x500`) and Setpoint's Photon prefix (`photon-m5d.xlarge`). Anything
 * else keeps its whole name (minus trailing size digits) as its family and no other trait.
 */
export interface InstanceTraits {
  /** The name without its size: per-family effects are keyed by it ("c5n", "c4+ebs-slow-2x500"). */
  family: string;
  /** Class letters ("c", "m", "r", "i"; Azure "D", "E", "F"), empty when the name has none. */
  series: string;
  /** Hardware generation (5 for m5a, 4 for Standard_E8ds_v4), null when the name does not say. */
  generation: number | null;
  processor: 'intel' | 'amd' | 'arm' | 'unknown';
  /** Instance-attached disks (NVMe or temp SSD): fast spill and shuffle. */
  localDisk: boolean;
  /** Network-optimized variant (AWS "n"). */
  networkOptimized: boolean;
  storage: StorageLayout | null;
  photon: boolean;
}

/** A storage layout written into the name, e.g. "ebs-slow-2x500". */
export interface StorageLayout {
  /** The layout as written. */
  label: string;
  /** Throughput class from the words used: hdd/st1/sc1/slow/standard are slow, ssd/gp*, io*, fast, nvme fast. */
  speed: 'slow' | 'fast' | 'unknown';
  volumes: number | null;
  totalGb: number | null;
}

const photonPrefix = 'photon-';
const awsPattern = /^([a-z]+?)(\d+)([a-z]*(?:-flex)?)\.([a-z0-9-]+)$/;
const azurePattern =
  /^(Standard_|Basic_)?([A-Z]+)(\d+)(-\d+)?([a-z]*)(?:_(?!v\d)([A-Za-z]\d*))?(?:_v(\d+))?$/;
const gcpPattern = /^([a-z])(\d+)([a-z]?)-([a-z]+)-(\d+)$/;

/** Names are few and read on every model evaluation: each is parsed once. */
const parsed = new Map<string, InstanceTraits>();

export function instanceTraits(instanceType: string): InstanceTraits {
  let traits = parsed.get(instanceType);
  if (!traits) {
    traits = parseInstanceTraits(instanceType);
    parsed.set(instanceType, traits);
  }
  return traits;
}

function parseInstanceTraits(instanceType: string): InstanceTraits {
  const photon = instanceType.startsWith(photonPrefix);
  const bare = photon ? instanceType.slice(photonPrefix.length) : instanceType;
  const plus = bare.indexOf('+');
  const name = plus >= 0 ? bare.slice(0, plus) : bare;
  const storage = plus >= 0 ? storageLayout(bare.slice(plus + 1)) : null;
  const suffix = storage ? `+${storage.label}` : '';
  const traits = awsTraits(name) ?? azureTraits(name) ?? gcpTraits(name) ?? unknownTraits(name);
  return {
    ...traits,
    family: `${photon ? photonPrefix : ''}${traits.family}${suffix}`,
    storage,
    photon,
  };
}

/** The family key of an instance type (see `InstanceTraits.family`). */
export function instanceFamily(instanceType: string): string {
  return instanceTraits(instanceType).family;
}

type NameTraits = Omit<InstanceTraits, 'storage' | 'photon'>;

function awsTraits(name: string): NameTraits | undefined {
  const match = awsPattern.exec(name);
  if (!match) return undefined;
  const [, series = '', generationText = '', attributes = ''] = match;
  const generation = Number(generationText);
  return {
    family: `${series}${generationText}${attributes}`,
    series,
    generation,
    processor: attributes.includes('g')
      ? 'arm'
      : attributes.includes('a')
        ? 'amd'
        : attributes.includes('i') || generation <= 6
          ? 'intel'
          : 'unknown',
    // i3/i4/d2/d3/h1 are storage families: their disks are local even without a "d".
    localDisk: attributes.includes('d') || /^(i|d|h|im|is)$/.test(series),
    networkOptimized: attributes.includes('n'),
  };
}

function azureTraits(name: string): NameTraits | undefined {
  const match = azurePattern.exec(name);
  if (!match) return undefined;
  const [, tier = '', series = '', , constrained = '', attributes = '', accelerator = '', version] = match;
  return {
    family: `${tier}${series}${attributes}${accelerator ? `_${accelerator}` : ''}${version ? `_v${version}` : ''}${constrained ? '-constrained' : ''}`,
    series,
    generation: version ? Number(version) : 1,
    processor: attributes.includes('p') ? 'arm' : attributes.includes('a') ? 'amd' : 'intel',
    // "d" is a local temp disk; the old DS/GS series ("S" in the series) and the L series have one too.
    localDisk: attributes.includes('d') || /S$/.test(series) || series === 'L',
    networkOptimized: false,
  };
}

function gcpTraits(name: string): NameTraits | undefined {
  const match = gcpPattern.exec(name);
  if (!match) return undefined;
  const [, series = '', generationText = '', variant = '', shape = ''] = match;
  return {
    family: `${series}${generationText}${variant}-${shape}`,
    series,
    generation: Number(generationText),
    processor: variant === 'd' ? 'amd' : variant === 'a' ? 'arm' : 'intel',
    localDisk: false,
    networkOptimized: false,
  };
}

function unknownTraits(name: string): NameTraits {
  const withoutSize = name.replace(/[._-]?\d+$/, '');
  return {
    family: withoutSize === '' ? name : withoutSize,
    series: '',
    generation: null,
    processor: 'unknown',
    localDisk: false,
    networkOptimized: false,
  };
}

const slowWords = new Set(['slow', 'hdd', 'st1', 'sc1', 'standard', 'magnetic', 'throughput']);
const fastWords = new Set(['fast', 'ssd', 'gp2', 'gp3', 'io1', 'io2', 'nvme', 'premium', 'provisioned']);

function storageLayout(label: string): StorageLayout {
  const words = label.toLowerCase().split(/[-_]/);
  const speed = words.some((word) => slowWords.has(word))
    ? 'slow'
    : words.some((word) => fastWords.has(word))
      ? 'fast'
      : 'unknown';
  const shape = words.map((word) => /^(\d+)x(\d+)(g|gb)?$/.exec(word)).find((found) => found !== null);
  const volumes = shape ? Number(shape[1]) : null;
  const sizeGb = shape ? Number(shape[2]) : null;
  return {
    label,
    speed,
    volumes,
    totalGb: volumes !== null && sizeGb !== null ? volumes * sizeGb : null,
  };
}
