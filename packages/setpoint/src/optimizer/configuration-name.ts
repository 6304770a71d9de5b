import type { Hardware, NodeStorage } from './types.js';

/**
 * A configuration's hardware as one name: the instance type, `photon-` before it on Photon, `+` and the
 * storage layout after it (`photon-m5d.xlarge`, `c5.xlarge+ebs-hdd-1x500`). It is what configuration-sweep
 * datasets write in their `instance_type` column, and the part of a candidate id that names the hardware.
 * Written from the fields here; read back only where it arrives as text (`hardwareOfName`).
 */
export function configurationName(hardware: Hardware): string {
  const engine = hardware.engine === 'photon' ? photonPrefix : '';
  return `${engine}${hardware.instanceType}${hardware.storage ? `+${hardware.storage.label}` : ''}`;
}

const photonPrefix = 'photon-';

/**
 * The hardware a configuration-sweep dataset names in its `instance_type` column (the shipped fleet, the
 * sweep benchmark), translated once as the dataset is read. Nothing else reads a name: a platform's
 * cluster model gives its candidates' fields directly.
 */
export function hardwareOfName(name: string): Hardware {
  const photon = name.startsWith(photonPrefix);
  const bare = photon ? name.slice(photonPrefix.length) : name;
  const plus = bare.indexOf('+');
  return {
    instanceType: plus >= 0 ? bare.slice(0, plus) : bare,
    engine: photon ? 'photon' : 'standard',
    storage: plus >= 0 ? storageOfLabel(bare.slice(plus + 1)) : null,
  };
}

const slowWords = new Set(['slow', 'hdd', 'st1', 'sc1', 'standard', 'magnetic', 'throughput']);
const fastWords = new Set(['fast', 'ssd', 'gp2', 'gp3', 'io1', 'io2', 'nvme', 'premium', 'provisioned']);

/** A storage layout a dataset labels in words ("ebs-slow-2x500"): its speed class and volumes × size. */
function storageOfLabel(label: string): NodeStorage {
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
