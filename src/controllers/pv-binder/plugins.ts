// The volume plugins kube-controller-manager 1.25 would reach for a class's provisioner or a
// released volume's deletion. capstan runs none: external provisioners are left to their own
// controllers as in the reference; in-tree ones that 1.25 migrates to CSI are external under their
// CSI driver's name; the only in-tree deleter with an outcome decidable here is hostPath's.
import { type JsonObject, isObject } from '../../json.js';
import { ANN_PROVISIONED_BY, annotationsOf, specOf } from './objects.js';

const IN_TREE = 'kubernetes.io/';

/** In-tree provisioners whose CSI migration is on by default in 1.25, and their drivers. */
const MIGRATED: Record<string, string> = {
  'kubernetes.io/aws-ebs': 'ebs.csi.aws.com',
  'kubernetes.io/gce-pd': 'pd.csi.storage.gke.io',
  'kubernetes.io/azure-disk': 'disk.csi.azure.com',
  'kubernetes.io/azure-file': 'file.csi.azure.com',
  'kubernetes.io/cinder': 'cinder.csi.openstack.org',
};

/** Who provisions for a class's provisioner: an external provisioner's name, or why none can. */
export function provisionerFor(provisioner: string): { external: string } | { error: string } {
  if (MIGRATED[provisioner]) return { external: MIGRATED[provisioner] };
  if (!provisioner.startsWith(IN_TREE)) return { external: provisioner };
  return { error: `no volume plugin matched name: ${provisioner}` };
}

export type DeleteOutcome = { deleted: true } | { external: true } | { error: string };

/** What deleting a released volume with the Delete policy comes to. */
export function deleteVolume(volume: JsonObject): DeleteOutcome {
  const provisionedBy = annotationsOf(volume)[ANN_PROVISIONED_BY];
  if (typeof provisionedBy === 'string' && provisionedBy) {
    if (!provisionedBy.startsWith(IN_TREE) || MIGRATED[provisionedBy]) return { external: true };
    if (provisionedBy !== 'kubernetes.io/host-path') return { error: `no volume plugin matched name: ${provisionedBy}` };
  }
  const hostPath = specOf(volume)['hostPath'];
  if (!isObject(hostPath)) return { error: 'no deletable volume plugin matched' };
  const path = String(hostPath['path'] ?? '');
  // The hostPath deleter only removes directories under /tmp (the reference's unanchored match).
  // capstan deletes the object and leaves the directory: it is a server, not the volume's node.
  if (!/\/tmp\/.+/.test(path)) return { error: `host_path deleter only supports /tmp/.+ but received provided ${path}` };
  return { deleted: true };
}
