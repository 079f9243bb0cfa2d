// The two webhook admission plugins, driven by admissionregistration.k8s.io/v1 configurations.
export { mutatingAdmissionWebhook } from './mutating.js';
export { validatingAdmissionWebhook } from './validating.js';
