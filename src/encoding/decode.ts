// Request bodies → plain objects. JSON (the default) and YAML (read as YAML 1.1, as the reference
// does); a body nested too deep is refused from its text, before any value is built (./depth.ts).
import { badRequest, StatusError } from '../errors.js';
import { isObject, type JsonObject, wellFormed } from '../json.js';
import { jsonDepthError } from './depth.js';
import { parseYaml, YamlRefused } from './yaml-decode.js';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

/** The reference quotes at most 30 characters of a body it cannot parse. */
function excerpt(text: string): string {
  return text.length > 30 ? `${text.slice(0, 30)} ...` : text;
}

/** Node's JSON.parse message, said the way Go's encoding/json says it. */
function goJsonError(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : String(err);
  if (/end of JSON input|Unterminated/i.test(message)) return 'unexpected end of JSON input';
  const pos = /position (\d+)/.exec(message);
  const at = pos ? Number(pos[1]) : 0;
  if (at >= text.length) return 'unexpected end of JSON input';
  return `invalid character '${text[at]}' looking for beginning of value`;
}

/** A JSON or YAML escape of a UTF-16 surrogate (`\\ud800`): the only way a decoded string can hold a lone one. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;

/**
 * Go's decoders read an escaped lone surrogate as U+FFFD; JavaScript keeps it, and a string that
 * is not well formed would be stored and sent back as such (a client's encodeURIComponent throws on
 * it). Only bodies that escape a surrogate are walked.
 */
function goStrings(value: unknown, text: string): unknown {
  return SURROGATE_ESCAPE.test(text) ? wellFormedValue(value) : value;
}

function wellFormedValue(value: unknown): unknown {
  if (typeof value === 'string') return wellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormedValue);
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [wellFormed(k), wellFormedValue(v)]));
  return value;
}

export function parseJson(text: string): unknown {
  return JSON.parse(text);
}

function unrecognized(kind: string, why: string, text: string): StatusError {
  return badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${why} (${excerpt(text)})`);
}

/** Decodes an object body of a POST/PUT. `kind` names the expected kind in messages. */
export function decodeObject(text: string, mediaType: string, kind: string): JsonObject {
  // The reference's create and update handlers say what the YAML decoder refused, with the body's start.
  return decodeAs(text, mediaType, kind, (why) => badRequest(`the object provided is unrecognized (must be of type ${kind}): ${why} (${excerpt(text)})`));
}

/** Decodes the object of a server-side apply (YAML, or JSON as YAML): its YAML refused as the reference's apply handler words it. */
export function decodeAppliedObject(text: string, kind: string): JsonObject {
  return decodeAs(text, 'application/yaml', kind, (why) => badRequest(`error decoding YAML: error converting YAML to JSON: ${why}`));
}

function decodeAs(text: string, mediaType: string, kind: string, yamlRefused: (why: string) => StatusError): JsonObject {
  let value: unknown;
  if (mediaType === 'application/yaml') {
    try {
      value = parseYaml(text);
    } catch (err) {
      if (err instanceof YamlRefused) throw yamlRefused(err.message);
      throw badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; yaml parse error: ${(err as Error).message}`);
    }
  } else {
    const tooDeep = jsonDepthError(text);
    if (tooDeep) throw unrecognized(kind, tooDeep, text);
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw unrecognized(kind, goJsonError(err, text), text);
    }
  }
  value = goStrings(value, text);
  if (!isObject(value)) {
    const what = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    throw unrecognized(kind, `json: cannot unmarshal ${what} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`, text);
  }
  return value;
}

/** Decodes a patch document (any JSON value; YAML for apply). */
export function decodePatch(text: string): unknown {
  const tooDeep = jsonDepthError(text);
  if (tooDeep) throw badRequest(`error decoding patch: ${tooDeep}`);
  try {
    return goStrings(JSON.parse(text), text);
  } catch (err) {
    throw badRequest(`error decoding patch: ${goJsonError(err, text)}`);
  }
}
