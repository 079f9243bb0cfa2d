// The Pod Security policy of a namespace, read from its pod-security.kubernetes.io labels: a level
// and version to enforce, to audit and to warn about.
import { fieldInvalid, type FieldError } from '../../../errors.js';

export type Level = 'privileged' | 'baseline' | 'restricted';

const LEVELS: readonly Level[] = ['privileged', 'baseline', 'restricted'];

/** A policy version: "latest" (undefined minor) or v1.<minor>. */
export interface Version {
  minor?: number;
}

export const LATEST: Version = {};

export interface LevelVersion {
  level: Level;
  version: Version;
}

export interface Policy {
  enforce: LevelVersion;
  audit: LevelVersion;
  warn: LevelVersion;
}

export const LABEL_PREFIX = 'pod-security.kubernetes.io/';

/** The policy without labels (the reference's defaults with no AdmissionConfiguration): privileged:latest everywhere; a new one to change. */
function defaultPolicy(): Policy {
  return {
    enforce: { level: 'privileged', version: LATEST },
    audit: { level: 'privileged', version: LATEST },
    warn: { level: 'privileged', version: LATEST },
  };
}

export function versionString(v: Version): string {
  return v.minor === undefined ? 'latest' : `v1.${v.minor}`;
}

export function levelVersionString(lv: LevelVersion): string {
  return `${lv.level}:${versionString(lv.version)}`;
}

export function sameLevelVersion(a: LevelVersion, b: LevelVersion): boolean {
  return a.level === b.level && a.version.minor === b.version.minor;
}

/** -1, 0, 1 as level a is less restrictive than, as restrictive as, or more restrictive than b. */
export function compareLevels(a: Level, b: Level): number {
  return Math.sign(LEVELS.indexOf(a) - LEVELS.indexOf(b));
}

/** A level; an unknown one fails closed (restricted). */
function parseLevel(value: string): { level: Level; error?: string } {
  if ((LEVELS as readonly string[]).includes(value)) return { level: value as Level };
  return { level: 'restricted', error: `must be one of ${LEVELS.join(', ')}` };
}

/** A version: "latest" or v1.<minor>; anything else is latest, with an error. */
function parseVersion(value: string): { version: Version; error?: string } {
  if (value === 'latest') return { version: LATEST };
  const m = /^v1\.(0|[1-9][0-9]*)$/.exec(value);
  if (!m) return { version: LATEST, error: 'must be "latest" or "v1.x"' };
  return { version: { minor: Number(m[1]) } };
}

/** The namespace's effective policy, and the errors of its labels (metadata.labels[…]: Invalid value). */
export function policyFromLabels(labels: Record<string, unknown>): { policy: Policy; errors: FieldError[] } {
  const policy = defaultPolicy();
  const errors: FieldError[] = [];
  const label = (mode: string, suffix = '') => {
    const key = `${LABEL_PREFIX}${mode}${suffix}`;
    return typeof labels[key] === 'string' ? { key, value: labels[key] as string } : undefined;
  };
  const note = (key: string, value: string, error: string | undefined) => {
    if (error) errors.push(fieldInvalid(`metadata.labels[${key}]`, value, error));
  };
  let enforceLevelSet = false;
  let warnLevelSet = false;
  let warnVersionSet = false;
  for (const mode of ['enforce', 'audit', 'warn'] as const) {
    const l = label(mode);
    if (l) {
      const { level, error } = parseLevel(l.value);
      policy[mode].level = level;
      note(l.key, l.value, error);
      if (mode === 'enforce') enforceLevelSet = !error;
      if (mode === 'warn') {
        warnLevelSet = true;
        // Warnings fail open.
        if (error) policy.warn.level = 'privileged';
      }
    }
    const v = label(mode, '-version');
    if (v) {
      const { version, error } = parseVersion(v.value);
      policy[mode].version = version;
      note(v.key, v.value, error);
      if (mode === 'warn') warnVersionSet = true;
    }
  }
  // Warn follows an explicitly stricter enforce level (and its version) unless warn is labelled.
  if (!warnLevelSet && enforceLevelSet && compareLevels(policy.enforce.level, policy.warn.level) > 0) {
    policy.warn.level = policy.enforce.level;
    if (!warnVersionSet) policy.warn.version = policy.enforce.version;
  }
  return { policy, errors };
}
