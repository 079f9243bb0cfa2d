// AlwaysAdmit: admits everything (deprecated in the reference; a no-op in the chain).
import type { AdmissionPlugin } from '../types.js';

export const alwaysAdmit: AdmissionPlugin = { name: 'AlwaysAdmit' };
