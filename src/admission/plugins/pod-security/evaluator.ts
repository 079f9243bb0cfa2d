// Evaluating a pod against a level and version: the checks that apply (baseline ones first, then
// restricted ones, each group by id; a restricted check replaces the baseline check it overrides),
// and their violations as the reference aggregates them into one message.
import type { JsonObject } from '../support.js';
import { CHECKS, type CheckPod, type Violation } from './checks.js';
import type { LevelVersion } from './policy.js';

/** The newest policy version any check has a variant for; later versions (and "latest") evaluate as it. */
const MAX_MINOR = Math.max(...CHECKS.flatMap((c) => c.versions.map((v) => v.minimum)));

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const BASELINE = CHECKS.filter((c) => c.level === 'baseline').sort(byId);
const RESTRICTED = CHECKS.filter((c) => c.level === 'restricted').sort(byId);

/** The variant of a check for a version, if the check applies at that version. */
function variantAt(versions: (typeof CHECKS)[number]['versions'], minor: number) {
  return [...versions].reverse().find((v) => v.minimum <= minor);
}

const cache = new Map<string, CheckPod[]>();

/** The checks of a level at a version, in evaluation order. */
function checksFor(lv: LevelVersion): CheckPod[] {
  if (lv.level === 'privileged') return [];
  const minor = Math.min(lv.version.minor ?? MAX_MINOR, MAX_MINOR);
  const key = `${lv.level}:${minor}`;
  let checks = cache.get(key);
  if (checks) return checks;
  const restricted = lv.level === 'restricted' ? RESTRICTED.map((c) => variantAt(c.versions, minor)).filter((v) => v !== undefined) : [];
  const overridden = new Set(restricted.flatMap((v) => v.overrides ?? []));
  checks = [
    ...BASELINE.filter((c) => !overridden.has(c.id)).map((c) => variantAt(c.versions, minor)?.check),
    ...restricted.map((v) => v.check),
  ].filter((c): c is CheckPod => c !== undefined);
  cache.set(key, checks);
  return checks;
}

export interface Evaluation {
  allowed: boolean;
  violations: Violation[];
}

export function evaluatePod(lv: LevelVersion, metadata: JsonObject, spec: JsonObject): Evaluation {
  const violations = checksFor(lv).map((check) => check(metadata, spec)).filter((v): v is Violation => v !== undefined);
  return { allowed: violations.length === 0, violations };
}

/** `reason (detail), reason, …`: what a refusal or warning says. */
export function forbiddenDetail(e: Evaluation): string {
  return e.violations.map((v) => (v.detail ? `${v.reason} (${v.detail})` : v.reason)).join(', ');
}

/** The reasons alone, for the per-pod warnings of a namespace relabel. */
export function forbiddenReason(e: Evaluation): string {
  return e.violations.map((v) => v.reason).join(', ');
}
