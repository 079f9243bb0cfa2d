// A strict reader of Prometheus' text exposition format (0.0.4), for tests that scrape /metrics:
// it throws on anything a Prometheus server would refuse or that the format does not allow —
// a malformed line, name, label or value, a sample before its family's TYPE, a family declared
// twice or interleaved with another, a series twice, a sample of a histogram that is not its
// _bucket/_sum/_count, a bucket without `le`, buckets that are not cumulative, or a +Inf bucket
// that differs from _count.

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name (with _bucket, _sum, _count for histograms). */
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: MetricType;
  help?: string;
  samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = new Set<MetricType>(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

class TextFormatError extends Error {
  constructor(lineNumber: number, message: string) {
    super(`line ${lineNumber}: ${message}`);
  }
}

function parseValue(text: string, line: number): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (text === 'NaN') return NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new TextFormatError(line, `not a number: ${JSON.stringify(text)}`);
  return Number(text);
}

/** The labels between braces, from `at` (just after `{`); returns them and where the closing brace ends. */
function parseLabels(text: string, at: number, line: number): { labels: Record<string, string>; end: number } {
  const labels: Record<string, string> = {};
  let i = at;
  while (text[i] !== '}') {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new TextFormatError(line, 'label without "="');
    const name = text.slice(i, eq);
    if (!LABEL_NAME.test(name)) throw new TextFormatError(line, `bad label name ${JSON.stringify(name)}`);
    if (Object.hasOwn(labels, name)) throw new TextFormatError(line, `label ${name} twice`);
    if (text[eq + 1] !== '"') throw new TextFormatError(line, `label ${name}: value not quoted`);
    let value = '';
    let j = eq + 2;
    for (;;) {
      const c = text[j];
      if (c === undefined) throw new TextFormatError(line, `label ${name}: unterminated value`);
      if (c === '"') break;
      if (c === '\\') {
        const next = text[j + 1];
        if (next === '\\') value += '\\';
        else if (next === '"') value += '"';
        else if (next === 'n') value += '\n';
        else throw new TextFormatError(line, `label ${name}: bad escape \\${next ?? ''}`);
        j += 2;
      } else {
        value += c;
        j++;
      }
    }
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i++;
    else if (text[i] !== '}') throw new TextFormatError(line, `expected "," or "}" after label ${name}`);
  }
  return { labels, end: i + 1 };
}

/** Which family a sample belongs to, given the families declared. */
function familyOf(sampleName: string, families: Map<string, Family>): Family | undefined {
  const own = families.get(sampleName);
  if (own) return own;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sampleName.endsWith(suffix)) continue;
    const f = families.get(sampleName.slice(0, -suffix.length));
    if (f && (f.type === 'histogram' || (f.type === 'summary' && suffix !== '_bucket'))) return f;
  }
  return undefined;
}

const seriesKey = (s: Sample): string => `${s.name}${JSON.stringify(Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : 1)))}`;

/** Every family of an exposition, in order; throws TextFormatError naming the first offending line. */
export function parsePrometheusText(text: string): Map<string, Family> {
  if (text.length > 0 && !text.endsWith('\n')) throw new TextFormatError(text.split('\n').length, 'the exposition does not end with a newline');
  const families = new Map<string, Family>();
  const closed = new Set<string>();
  const series = new Set<string>();
  let current: Family | undefined;
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
      if (!m) return; // other comments are allowed
      const [, kind, name, rest] = m as unknown as [string, 'HELP' | 'TYPE', string, string];
      if (!METRIC_NAME.test(name)) throw new TextFormatError(line, `bad metric name ${JSON.stringify(name)}`);
      let f = families.get(name);
      if (f && closed.has(name)) throw new TextFormatError(line, `family ${name} declared again after another family`);
      if (!f) {
        if (current) closed.add(current.name);
        f = { name, type: 'untyped', samples: [] };
        families.set(name, f);
        current = f;
      }
      if (kind === 'TYPE') {
        if (!TYPES.has(rest as MetricType)) throw new TextFormatError(line, `unknown type ${JSON.stringify(rest)}`);
        if (f.samples.length > 0) throw new TextFormatError(line, `TYPE of ${name} after its samples`);
        f.type = rest as MetricType;
      } else {
        if (f.help !== undefined) throw new TextFormatError(line, `HELP of ${name} twice`);
        f.help = rest.replace(/\\n/g, '\n').replace(/\\\\/g, '\\');
      }
      return;
    }
    const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(raw);
    if (!nameMatch) throw new TextFormatError(line, `not a sample: ${JSON.stringify(raw)}`);
    const name = nameMatch[0];
    let labels: Record<string, string> = {};
    let rest = raw.slice(name.length);
    if (rest.startsWith('{')) {
      const parsed = parseLabels(raw, name.length + 1, line);
      labels = parsed.labels;
      rest = raw.slice(parsed.end);
    }
    const fields = rest.trim().split(/\s+/);
    if (!rest.startsWith(' ') || fields.length < 1 || fields.length > 2) throw new TextFormatError(line, `expected a value (and a timestamp) after ${name}`);
    const value = parseValue(fields[0]!, line);
    if (fields[1] !== undefined && !/^-?\d+$/.test(fields[1])) throw new TextFormatError(line, `bad timestamp ${fields[1]}`);
    let f = familyOf(name, families);
    if (!f) {
      // An untyped sample opens a family of its own.
      if (current) closed.add(current.name);
      f = { name, type: 'untyped', samples: [] };
      families.set(name, f);
      current = f;
    }
    if (f !== current) throw new TextFormatError(line, `sample of ${f.name} outside its family's block`);
    if (f.type === 'histogram' && name === f.name) throw new TextFormatError(line, `histogram ${f.name} sample without _bucket, _sum or _count`);
    if (name.endsWith('_bucket') && f.type === 'histogram' && labels['le'] === undefined) throw new TextFormatError(line, `bucket of ${f.name} without le`);
    const sample = { name, labels, value };
    const key = seriesKey(sample);
    if (series.has(key)) throw new TextFormatError(line, `series ${key} twice`);
    series.add(key);
    f.samples.push(sample);
  });
  for (const f of families.values()) if (f.type === 'histogram') checkHistogram(f);
  return families;
}

/** Buckets cumulative and ending in +Inf equal to _count, per series (labels without le). */
function checkHistogram(f: Family): void {
  const bySeries = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1)));
    let entry = bySeries.get(key);
    if (!entry) bySeries.set(key, (entry = { buckets: [] }));
    if (s.name.endsWith('_bucket')) entry.buckets.push([parseValue(le!, 0), s.value]);
    else if (s.name.endsWith('_count')) entry.count = s.value;
    else entry.sum = s.value;
  }
  for (const [key, e] of bySeries) {
    if (e.count === undefined || e.sum === undefined) throw new Error(`${f.name}${key}: _count or _sum missing`);
    const sorted = [...e.buckets].sort((a, b) => a[0] - b[0]);
    if (sorted.length === 0 || sorted[sorted.length - 1]![0] !== Infinity) throw new Error(`${f.name}${key}: no +Inf bucket`);
    for (let i = 1; i < sorted.length; i++) {
      if (sorted[i]![1] < sorted[i - 1]![1]) throw new Error(`${f.name}${key}: bucket le=${sorted[i]![0]} counts fewer than le=${sorted[i - 1]![0]}`);
    }
    if (sorted[sorted.length - 1]![1] !== e.count) throw new Error(`${f.name}${key}: +Inf bucket ${sorted[sorted.length - 1]![1]} is not _count ${e.count}`);
  }
}

/** The value of the one sample named `name` whose labels are exactly `labels`; undefined when there is none. */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string>): number | undefined {
  const want = JSON.stringify(Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)));
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name === name && JSON.stringify(Object.entries(s.labels).sort(([a], [b]) => (a < b ? -1 : 1))) === want) return s.value;
    }
  }
  return undefined;
}

/** Every sample named `name` whose labels include `labels`. */
export function samplesMatching(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): Sample[] {
  const out: Sample[] = [];
  for (const f of families.values()) {
    for (const s of f.samples) {
      if (s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)) out.push(s);
    }
  }
  return out;
}
