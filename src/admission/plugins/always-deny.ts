// AlwaysDeny: refuses every write (deprecated; for testing).
import type { AdmissionAttributes, AdmissionPlugin } from '../types.js';
import { forbidden } from './support.js';

function deny(a: AdmissionAttributes): never {
  throw forbidden(a, 'admission control is denying all modifications', 'mutate');
}

export const alwaysDeny: AdmissionPlugin = { name: 'AlwaysDeny', mutate: deny, validate: deny };
