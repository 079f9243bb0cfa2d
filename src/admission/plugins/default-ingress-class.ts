// DefaultIngressClass: a new Ingress that names no class gets the IngressClass marked as default.
import type { AdmissionPlugin } from '../types.js';
import { annotationsOf, child, forbidden, isResource, listObjects, objectOf, setOrdered } from './support.js';

const IS_DEFAULT = 'ingressclass.kubernetes.io/is-default-class';
/** The class annotation that predates spec.ingressClassName; an Ingress carrying it has chosen. */
const CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
const INGRESS_SPEC_ORDER = ['ingressClassName', 'defaultBackend', 'tls', 'rules'];

export const defaultIngressClass: AdmissionPlugin = {
  name: 'DefaultIngressClass',
  operations: ['CREATE'],
  async mutate(a, { registry }) {
    if (a.subresource || !isResource(a, 'networking.k8s.io', 'ingresses')) return;
    const ingress = objectOf(a.object);
    if (!ingress) return;
    if (typeof objectOf(ingress['spec'])?.['ingressClassName'] === 'string' || CLASS_ANNOTATION in annotationsOf(ingress)) return;
    const defaults = (await listObjects(registry, 'networking.k8s.io', 'ingressclasses')).filter((c) => annotationsOf(c)[IS_DEFAULT] === 'true');
    if (defaults.length > 1) {
      throw forbidden(a, `Internal error occurred: ${defaults.length} default IngressClasses were found, only 1 allowed`, 'mutate');
    }
    const name = defaults[0] && objectOf(defaults[0]['metadata'])?.['name'];
    if (typeof name === 'string') setOrdered(child(ingress, 'spec'), 'ingressClassName', name, INGRESS_SPEC_ORDER);
  },
};
