import type { Hardware, NodeStorage } from './types.js';

/**
 * What a configuration's hardware says, so the optimizer can reason about types it has no measurements
 * for (an unseen family, a newer generation, a disk layout): the family identity, the series, the
 * generation, the processor and local disks read from the cloud's instance-type name, with the engine and
 * the attached storage from the candidate's own fields.
 *
 * Instance-type names understood: AWS (`c5n.2xlarge`, `m5ad.xlarge`, `r6gd.4xlarge`, `m7i-flex.large`),
 * Azure (`Standard_E8ds_v4`, `Standard_DS3_v2`, `Standard_F8s_v2`), GCP (`n2-highmem-8`). Anything else
 * keeps its whole name (minus trailing size digits) as its family and no other trait.
 */
export interface InstanceTraits {
  /**
   * The key per-family effects are learned by: the type's family, the engine and the storage layout
   * ("c5n", "photon-m5d", "c4+ebs-slow-2x500"), written from the fields by `familyKey`.
   */
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
  storage: NodeStorage | null;
  photon: boolean;
}

const awsPattern = /^([a-z]+?)(\d+)([a-z]*(?:-flex)?)\.([a-z0-9-]+)$/;
const azurePattern =
  /^(Standard_|Basic_)?([A-Z]+)(\d+)(-\d+)?([a-z]*)(?:_(?!v\d)([A-Za-z]\d*))?(?:_v(\d+))?$/;
const gcpPattern = /^([a-z])(\d+)([a-z]?)-([a-z]+)-(\d+)$/;

/**
 * Traits are read on every model evaluation: each instance-type name is read once, and each hardware
 * (type × engine × storage layout) is assembled once, found again without building a string.
 */
const byType = new Map<string, { name: NameTraits; byLayout: Map<string, InstanceTraits>[] }>();
const engineSlot = { standard: 0, photon: 1 } as const;

export function instanceTraits(hardware: Hardware): InstanceTraits {
  let known = byType.get(hardware.instanceType);
  if (!known) {
    known = { name: nameTraits(hardware.instanceType), byLayout: [new Map(), new Map()] };
    byType.set(hardware.instanceType, known);
  }
  const layouts = known.byLayout[engineSlot[hardware.engine]] as Map<string, InstanceTraits>;
  const layout = hardware.storage?.label ?? '';
  let traits = layouts.get(layout);
  if (!traits) {
    const photon = hardware.engine === 'photon';
    traits = {
      ...known.name,
      family: familyKey(known.name.family, photon, hardware.storage),
      storage: hardware.storage,
      photon,
    };
    layouts.set(layout, traits);
  }
  return traits;
}

/** The one way a family key is written: Photon and a storage layout are families of their own. */
function familyKey(typeFamily: string, photon: boolean, storage: NodeStorage | null): string {
  return `${photon ? 'photon-' : ''}${typeFamily}${storage ? `+${storage.label}` : ''}`;
}

function nameTraits(instanceType: string): NameTraits {
  return (
    awsTraits(instanceType) ??
    azureTraits(instanceType) ??
    gcpTraits(instanceType) ??
    unknownTraits(instanceType)
  );
}

/** The family key of a configuration's hardware (see `InstanceTraits.family`). */
export function instanceFamily(hardware: Hardware): string {
  return instanceTraits(hardware).family;
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
