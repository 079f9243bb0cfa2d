// CronJob schedules as kube-controller-manager 1.25 reads them (robfig/cron v3's standard parser):
// five fields (minute, hour, day of month, month, day of week) of numbers, names (JAN, SUN),
// ranges, steps and lists; descriptors (@hourly, @daily, @every 90s…); an optional `TZ=<zone> `
// or `CRON_TZ=<zone> ` prefix. A day matches when both day fields do if either is a star, else
// when either does. next() walks month, day, hour and minute as the library does, on the wall
// clock of the schedule's zone (Node's Intl knows the IANA zones).
import { ZonedClock } from './zoned-clock.js';

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MONTH_NAMES = Object.fromEntries(['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'].map((n, i) => [n, i + 1]));
const DAY_NAMES = Object.fromEntries(['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'].map((n, i) => [n, i]));

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DAYS_OF_MONTH: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = { min: 1, max: 12, names: MONTH_NAMES };
const DAYS_OF_WEEK: Bounds = { min: 0, max: 6, names: DAY_NAMES };

const DESCRIPTORS: Record<string, string> = {
  '@yearly': '0 0 1 1 *', '@annually': '0 0 1 1 *', '@monthly': '0 0 1 * *', '@weekly': '0 0 * * 0', '@daily': '0 0 * * *', '@midnight': '0 0 * * *', '@hourly': '0 * * * *',
};

/** A field's allowed values, and whether it was a star (`*` or `?` without a step above 1). */
interface Field {
  values: Set<number>;
  star: boolean;
}

export interface Schedule {
  /** The first activation strictly after `ms` (whole seconds), or undefined when none within five years. */
  next(ms: number): number | undefined;
}

function parseNumber(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new Error(`failed to parse int from ${text}: strconv.Atoi: parsing "${text}": invalid syntax`);
  const n = Number(text);
  if (n < 0) throw new Error(`negative number (${n}) not allowed: ${text}`);
  return n;
}

function parseValue(text: string, bounds: Bounds): number {
  const named = bounds.names?.[text.toLowerCase()];
  return named !== undefined ? named : parseNumber(text);
}

function parseRange(expr: string, bounds: Bounds, field: Field): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const single = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  let star = false;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = bounds.min;
    end = bounds.max;
    star = true;
  } else {
    start = parseValue(lowAndHigh[0]!, bounds);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseValue(lowAndHigh[1]!, bounds);
    else throw new Error(`too many hyphens: ${expr}`);
  }
  let step: number;
  if (rangeAndStep.length === 1) step = 1;
  else if (rangeAndStep.length === 2) {
    step = parseNumber(rangeAndStep[1]!);
    // "N/step" means N to the maximum.
    if (single) end = bounds.max;
    if (step > 1) star = false;
  } else throw new Error(`too many slashes: ${expr}`);
  if (start < bounds.min) throw new Error(`beginning of range (${start}) below minimum (${bounds.min}): ${expr}`);
  if (end > bounds.max) throw new Error(`end of range (${end}) above maximum (${bounds.max}): ${expr}`);
  if (start > end) throw new Error(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new Error(`step of range should be a positive number: ${expr}`);
  for (let v = start; v <= end; v += step) field.values.add(v);
  if (star) field.star = true;
}

function parseField(text: string, bounds: Bounds): Field {
  const field: Field = { values: new Set(), star: false };
  for (const part of text.split(',')) parseRange(part, bounds, field);
  return field;
}

/** Parses a schedule; throws the library's message for a bad one. */
export function parseSchedule(spec: string): Schedule {
  let text = spec.trim();
  if (text === '') throw new Error('empty spec string');
  let zone = 'UTC';
  if (text.startsWith('TZ=') || text.startsWith('CRON_TZ=')) {
    const space = text.indexOf(' ');
    const eq = text.indexOf('=');
    const name = space < 0 ? text.slice(eq + 1) : text.slice(eq + 1, space);
    if (!ZonedClock.valid(name)) throw new Error(`provided bad location ${name}: unknown time zone ${name}`);
    zone = name;
    text = space < 0 ? '' : text.slice(space).trim();
  }
  const clock = new ZonedClock(zone);
  if (text.startsWith('@every ')) return everySchedule(text.slice('@every '.length).trim(), spec);
  if (text.startsWith('@')) {
    const expanded = DESCRIPTORS[text];
    if (!expanded) throw new Error(`unrecognized descriptor: ${text}`);
    text = expanded;
  }
  const fields = text.split(/\s+/).filter(Boolean);
  if (fields.length !== 5) throw new Error(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
  const [minute, hour, dom, month, dow] = [
    parseField(fields[0]!, MINUTES), parseField(fields[1]!, HOURS), parseField(fields[2]!, DAYS_OF_MONTH), parseField(fields[3]!, MONTHS), parseField(fields[4]!, DAYS_OF_WEEK),
  ];
  return new SpecSchedule(clock, minute, hour, dom, month, dow);
}

/** `@every <duration>`: a constant delay, whole seconds, at least one. */
function everySchedule(text: string, spec: string): Schedule {
  const ms = parseGoDuration(text);
  if (ms === undefined) throw new Error(`failed to parse duration ${spec}: time: invalid duration "${text}"`);
  const delay = Math.max(1000, Math.round(ms / 1000) * 1000);
  return { next: (t) => t - (t % 1000) + delay };
}

function parseGoDuration(text: string): number | undefined {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  if (!/^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(text)) return undefined;
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) total += Number(m[1]) * units[m[2]!]!;
  return total;
}

class SpecSchedule implements Schedule {
  constructor(
    private readonly clock: ZonedClock,
    private readonly minute: Field, private readonly hour: Field, private readonly dom: Field, private readonly month: Field, private readonly dow: Field,
  ) {}

  private dayMatches(t: number): boolean {
    const f = this.clock.fields(t);
    const domMatch = this.dom.values.has(f.day);
    const dowMatch = this.dow.values.has(f.weekday);
    return this.dom.star || this.dow.star ? domMatch && dowMatch : domMatch || dowMatch;
  }

  next(from: number): number | undefined {
    const c = this.clock;
    // The upcoming whole second.
    let t = from - (((from % 1000) + 1000) % 1000) + 1000;
    let added = false;
    const yearLimit = c.fields(t).year + 5;
    wrap: for (;;) {
      if (c.fields(t).year > yearLimit) return undefined;
      while (!this.month.values.has(c.fields(t).month)) {
        if (!added) {
          added = true;
          const f = c.fields(t);
          t = c.date(f.year, f.month, 1, 0, 0, 0);
        }
        t = c.addDate(t, 1, 0);
        if (c.fields(t).month === 1) continue wrap;
      }
      while (!this.dayMatches(t)) {
        if (!added) {
          added = true;
          const f = c.fields(t);
          t = c.date(f.year, f.month, f.day, 0, 0, 0);
        }
        t = c.addDate(t, 0, 1);
        // A day that does not start at midnight (daylight saving): back to its midnight, or on to the next.
        const h = c.fields(t).hour;
        if (h !== 0) t += (h > 12 ? 24 - h : -h) * 3_600_000;
        if (c.fields(t).day === 1) continue wrap;
      }
      while (!this.hour.values.has(c.fields(t).hour)) {
        if (!added) {
          added = true;
          const f = c.fields(t);
          t = c.date(f.year, f.month, f.day, f.hour, 0, 0);
        }
        t += 3_600_000;
        if (c.fields(t).hour === 0) continue wrap;
      }
      while (!this.minute.values.has(c.fields(t).minute)) {
        if (!added) {
          added = true;
          t -= ((t % 60_000) + 60_000) % 60_000;
        }
        t += 60_000;
        if (c.fields(t).minute === 0) continue wrap;
      }
      // The standard parser's seconds field is 0.
      while (c.fields(t).second !== 0) {
        if (!added) {
          added = true;
          t -= ((t % 1000) + 1000) % 1000;
        }
        t += 1000;
        if (c.fields(t).second === 0) continue wrap;
      }
      return t;
    }
  }
}
