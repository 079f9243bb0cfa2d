// Wall-clock arithmetic in an IANA time zone, as Go's time.Date and AddDate do it: fields of an
// instant, and the instant of (normalized) fields. UTC needs no lookup; other zones ask Intl.

export interface WallFields {
  year: number;
  /** 1–12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  /** 0 (Sunday) – 6 */
  weekday: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
    formatters.set(zone, f);
  }
  return f;
}

export class ZonedClock {
  private readonly utc: boolean;

  constructor(readonly zone: string) {
    this.utc = zone === 'UTC' || zone === '' || zone === 'Etc/UTC';
  }

  /** Whether Go's time.LoadLocation would know the zone ("" and "UTC" included). */
  static valid(zone: string): boolean {
    if (zone === '' || zone === 'UTC' || zone === 'Local') return true;
    try {
      formatterOf(zone);
      return true;
    } catch {
      return false;
    }
  }

  /** The offset of the zone from UTC at an instant (ms). */
  private offsetAt(ms: number): number {
    if (this.utc) return 0;
    const parts: Record<string, number> = {};
    for (const p of formatterOf(this.zone).formatToParts(new Date(ms))) if (p.type !== 'literal') parts[p.type] = Number(p.value);
    const wall = Date.UTC(parts['year']!, parts['month']! - 1, parts['day']!, parts['hour']!, parts['minute']!, parts['second']!);
    return wall - (ms - (((ms % 1000) + 1000) % 1000));
  }

  fields(ms: number): WallFields {
    const d = new Date(ms + this.offsetAt(ms));
    return {
      year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate(),
      hour: d.getUTCHours(), minute: d.getUTCMinutes(), second: d.getUTCSeconds(), weekday: d.getUTCDay(),
    };
  }

  /** The instant of wall-clock fields (out-of-range fields carry over, as Go's time.Date). */
  date(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
    const wall = Date.UTC(year, month - 1, day, hour, minute, second);
    if (this.utc) return wall;
    const first = this.offsetAt(wall);
    const guess = wall - first;
    const second2 = this.offsetAt(guess);
    return second2 === first ? guess : wall - second2;
  }

  /** Go's AddDate: the same wall time `months` and `days` later. */
  addDate(ms: number, months: number, days: number): number {
    const f = this.fields(ms);
    return this.date(f.year, f.month + months, f.day + days, f.hour, f.minute, f.second) + (((ms % 1000) + 1000) % 1000);
  }
}
