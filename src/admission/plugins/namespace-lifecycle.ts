// NamespaceLifecycle: nothing is created in a namespace that does not exist or is terminating, and
// the system namespaces (default, kube-system, kube-public) cannot be deleted. The registry enforces
// both where it handles namespaces (store.ts requireNamespace, the namespace strategy); they ask the
// chain whether this plugin is enabled, so --disable-admission-plugins=NamespaceLifecycle lifts them.
import type { AdmissionPlugin } from '../types.js';

export const namespaceLifecycle: AdmissionPlugin = { name: 'NamespaceLifecycle' };
