// --feature-gates as kube-apiserver 1.25 reads it (component-base's feature gate): the known gates
// are data (data/feature-gates-1.25.json); each `Name=bool` entry sets one, in the order given,
// repeated flags adding up. A name the table lacks, a value Go's strconv.ParseBool refuses, or a
// locked gate set away from its default refuse the start with the reference's words. AllAlpha and
// AllBeta set every alpha (beta) gate not set before them. Setting a GA or deprecated gate warns.
import { readDataJson } from './data.js';

export type FeatureStage = 'ALPHA' | 'BETA' | 'GA' | 'DEPRECATED';

export interface FeatureGateSpec {
  readonly name: string;
  readonly stage: FeatureStage;
  readonly default: boolean;
  readonly lockToDefault: boolean;
  /** The part of the reference that registers it: kubernetes, apiserver or component-base. */
  readonly source: string;
}

/** Every gate kube-apiserver 1.25 knows, by name. */
export const FEATURE_GATES_1_25: ReadonlyMap<string, FeatureGateSpec> = new Map(
  readDataJson<FeatureGateSpec[]>('feature-gates-1.25.json').map((g) => [g.name, g]),
);

/** Go's strconv.ParseBool; undefined for what it refuses. */
function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/** Go's %q of a string, as strconv's errors quote it (enough for flag text). */
const goQuote = (text: string): string => JSON.stringify(text);

/** Which gates are on, made once at start from --feature-gates and handed where a gate matters. */
export class FeatureGates {
  private constructor(
    private readonly set: ReadonlyMap<string, boolean>,
    /** The reference's warnings for GA and deprecated gates that were set, in order. */
    readonly warnings: readonly string[],
  ) {}

  /** Every gate at its default. */
  static readonly DEFAULTS = new FeatureGates(new Map(), []);

  /**
   * The gates `entries` (the flag's `Name=bool` items, every occurrence of the flag in order) set;
   * throws an Error with the reference's message.
   */
  static parse(entries: readonly string[]): FeatureGates {
    const enabled = new Map<string, boolean>();
    const warnings: string[] = [];
    for (const entry of entries) {
      if (entry === '') continue;
      const at = entry.indexOf('=');
      const name = (at < 0 ? entry : entry.slice(0, at)).trim();
      if (at < 0) throw new Error(`missing bool value for ${name}`);
      const text = entry.slice(at + 1).trim();
      const value = parseGoBool(text);
      if (value === undefined) throw new Error(`invalid value of ${name}=${text}, err: strconv.ParseBool: parsing ${goQuote(text)}: invalid syntax`);
      const spec = FEATURE_GATES_1_25.get(name);
      if (!spec) throw new Error(`unrecognized feature gate: ${name}`);
      if (spec.lockToDefault && spec.default !== value) throw new Error(`cannot set feature gate ${name} to ${value}, feature is locked to ${spec.default}`);
      enabled.set(name, value);
      // The stage-wide switches leave the gates already set alone (whatever the order, the named one wins).
      const stage = name === 'AllAlpha' ? 'ALPHA' : name === 'AllBeta' ? 'BETA' : undefined;
      if (stage) {
        for (const gate of FEATURE_GATES_1_25.values()) {
          if (gate.stage === stage && !enabled.has(gate.name)) enabled.set(gate.name, value);
        }
      }
      if (spec.stage === 'DEPRECATED') warnings.push(`Setting deprecated feature gate ${name}=${value}. It will be removed in a future release.`);
      else if (spec.stage === 'GA') warnings.push(`Setting GA feature gate ${name}=${value}. It will be removed in a future release.`);
    }
    return new FeatureGates(enabled, warnings);
  }

  /** Whether a gate is on (as set, else its default); a name the table lacks is a programming error. */
  enabled(name: string): boolean {
    const value = this.set.get(name);
    if (value !== undefined) return value;
    const spec = FEATURE_GATES_1_25.get(name);
    if (!spec) throw new Error(`feature ${goQuote(name)} is not registered`);
    return spec.default;
  }
}

/** The lines --help lists under --feature-gates, as the reference's: alpha and beta gates, sorted as Go sorts strings. */
export function featureGateHelpLines(): string[] {
  const lines = [...FEATURE_GATES_1_25.values()]
    .filter((g) => g.stage === 'ALPHA' || g.stage === 'BETA')
    .map((g) => `${g.name}=true|false (${g.stage} - default=${g.default})`);
  // Byte order (Go's sort.Strings), not locale order: "APIListChunking" before "AllAlpha".
  return lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
