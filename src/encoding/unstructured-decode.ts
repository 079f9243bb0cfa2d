// The reference's conversion of a decoded map (the result of a strategic merge patch) into
// its Go type (runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation), reduced
// to what it reports: unknown fields (`unknown field "spec.foo"`, sorted by message, as the
// reference sorts them) and the first conversion error ("unrecognized type: int32", "cannot
// convert float64 to int32", "cannot restore struct from: string", …).
// Numbers of the map are int64 when integral, float64 otherwise (the patch was decoded
// preserving integers).
import { quantityError } from '../api/quantity.js';
import { goKind } from './go-format.js';
import { base64Error, RFC3339, RFC3339_MICRO, timeError } from './go-scalars.js';
import type { GoType } from './go-types.js';

export interface UnstructuredDecodeResult {
  /** `unknown field "…"`, sorted. */
  unknown: string[];
  /** Where the unknown fields are, to drop them (object keys and list indexes). */
  unknownPaths: Array<Array<string | number>>;
  error?: string;
}

class ConversionError extends Error {}

/** A map key: part of where a value is, but not of the path the reference prints. */
interface MapKey {
  mapKey: string;
}

type Segment = string | number | MapKey;

/** json.Marshal of a decoded value, as a type's UnmarshalJSON receives it. */
function jsonOf(v: unknown): string {
  return JSON.stringify(v) ?? 'null';
}

function jsonWhat(v: unknown): string {
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'string') return 'string';
  return Array.isArray(v) ? 'array' : 'object';
}

function walk(v: unknown, t: GoType, path: Segment[], out: UnstructuredDecodeResult): void {
  if (v === null || v === undefined) return;
  const kind = goKind(v, true);
  switch (t.kind) {
    case 'raw': case 'any':
      return;
    case 'string':
      if (kind === 'string') return;
      throw new ConversionError(kind === 'int64' ? `cannot convert int64 to ${t.name}` : 'unrecognized type: string');
    case 'bool':
      if (kind === 'bool') return;
      throw new ConversionError('unrecognized type: bool');
    case 'int':
      if (kind === 'int64') return;
      if (kind === 'float64') throw new ConversionError(`cannot convert float64 to ${t.name}`);
      throw new ConversionError(`unrecognized type: ${t.name}`);
    case 'float':
      if (kind === 'int64' || kind === 'float64') return;
      throw new ConversionError(`unrecognized type: ${t.name}`);
    case 'intOrString':
      if (typeof v === 'string' || (Number.isInteger(v) && Math.abs(v as number) < 2 ** 31)) return;
      throw new ConversionError(`json: cannot unmarshal ${typeof v === 'number' ? `number ${jsonOf(v)}` : jsonWhat(v)} into Go value of type int32`);
    case 'quantity': {
      const text = jsonOf(v);
      const err = quantityError(typeof v === 'string' ? v : text);
      if (err) throw new ConversionError(err);
      return;
    }
    case 'time': {
      if (typeof v !== 'string') throw new ConversionError(`json: cannot unmarshal ${jsonWhat(v)} into Go value of type string`);
      const err = timeError(v, t.name === 'v1.MicroTime' ? RFC3339_MICRO : RFC3339);
      if (err) throw new ConversionError(err);
      return;
    }
    case 'bytes':
      if (typeof v === 'string') {
        const err = v === '' ? undefined : base64Error(v);
        if (err) throw new ConversionError(`error decoding from json: ${err}`);
        return;
      }
      if (kind !== 'slice') throw new ConversionError(`cannot restore slice from ${kind}`);
      return;
    case 'slice':
      if (!Array.isArray(v)) throw new ConversionError(`cannot restore slice from ${kind}`);
      v.forEach((item, i) => {
        path.push(i);
        walk(item, t.elem(), path, out);
        path.pop();
      });
      return;
    case 'map':
      if (kind !== 'map') throw new ConversionError(`cannot restore map from ${kind}`);
      // Map values are converted without their key in the printed path, as the reference does.
      for (const [key, item] of Object.entries(v as Record<string, unknown>)) {
        path.push({ mapKey: key });
        walk(item, t.elem(), path, out);
        path.pop();
      }
      return;
    case 'struct': {
      if (kind !== 'map') throw new ConversionError(`cannot restore struct from: ${kind}`);
      const obj = v as Record<string, unknown>;
      for (const key of Object.keys(obj)) {
        const child = t.field(key);
        path.push(key);
        if (child === undefined) {
          out.unknown.push(`unknown field ${JSON.stringify(pathText(path))}`);
          out.unknownPaths.push(path.map((seg) => (typeof seg === 'object' ? seg.mapKey : seg)));
        } else walk(obj[key], child, path, out);
        path.pop();
      }
      return;
    }
    default:
  }
}

function pathText(path: Segment[]): string {
  let p = '';
  for (const seg of path) {
    if (typeof seg === 'object') continue;
    p += typeof seg === 'number' ? `[${seg}]` : p === '' ? seg : `.${seg}`;
  }
  return p;
}

/** Converts `obj` into `target` as the reference's unstructured converter would. */
export function unstructuredDecode(obj: unknown, target: GoType): UnstructuredDecodeResult {
  const out: UnstructuredDecodeResult = { unknown: [], unknownPaths: [] };
  try {
    walk(obj, target, [], out);
  } catch (err) {
    if (!(err instanceof ConversionError)) throw err;
    out.error = err.message;
  }
  out.unknown.sort();
  return out;
}
