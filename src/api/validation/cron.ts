// Cron schedules as the reference parses them (robfig/cron's standard parser): five fields or a
// descriptor; the error text is the parser's.

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTHS: Record<string, number> = { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 };
const DAYS: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const FIELDS: Bounds[] = [{ min: 0, max: 59 }, { min: 0, max: 23 }, { min: 1, max: 31 }, { min: 1, max: 12, names: MONTHS }, { min: 0, max: 6, names: DAYS }];
const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/** strconv.Atoi with its error text. */
function atoi(expr: string): number {
  if (!/^[+-]?\d+$/.test(expr)) throw new Error(`failed to parse int from ${expr}: strconv.Atoi: parsing ${JSON.stringify(expr)}: invalid syntax`);
  const n = Number(expr);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

const intOrName = (expr: string, b: Bounds): number => b.names?.[expr.toLowerCase()] ?? atoi(expr);

function checkRange(expr: string, b: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = b.min;
    end = b.max;
  } else {
    start = intOrName(lowAndHigh[0]!, b);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = intOrName(lowAndHigh[1]!, b);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = atoi(rangeAndStep[1]!);
    if (lowAndHigh.length === 1) end = b.max;
  } else if (rangeAndStep.length > 2) {
    throw new Error(`too many slashes: ${expr}`);
  }
  if (start < b.min) throw new Error(`beginning of range (${start}) below minimum (${b.min}): ${expr}`);
  if (end > b.max) throw new Error(`end of range (${end}) above maximum (${b.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
}

/** Go's time.ParseDuration, as far as @every needs it. */
const DURATION = /^[-+]?((\d+(\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h))+$|^0$/;

/** The parser's error for a schedule, or undefined when it parses. */
export function cronError(schedule: string): string | undefined {
  try {
    let spec = schedule;
    if (spec === '') return 'empty spec string';
    if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
      const space = spec.indexOf(' ');
      spec = space < 0 ? '' : spec.slice(space).trim();
    }
    if (spec.startsWith('@')) {
      if (DESCRIPTORS.includes(spec)) return undefined;
      if (spec.startsWith('@every ')) {
        const d = spec.slice('@every '.length);
        return DURATION.test(d) ? undefined : `failed to parse duration ${spec}: time: invalid duration ${JSON.stringify(d)}`;
      }
      return `unrecognized descriptor: ${spec}`;
    }
    const fields = spec.split(/\s+/).filter(Boolean);
    if (fields.length !== 5) return `expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`;
    fields.forEach((f, i) => {
      for (const expr of f.split(',').filter(Boolean)) checkRange(expr, FIELDS[i]!);
    });
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
