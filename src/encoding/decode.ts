// Request bodies → plain objects. JSON (the default) and YAML (read as YAML 1.1, as the reference does).
import { parse as parseYaml, type DocumentOptions, type ParseOptions, type ScalarTag, type SchemaOptions } from 'yaml';
import { badRequest, StatusError } from '../errors.js';
import { isObject, type JsonObject } from '../json.js';

export const MAX_BODY_BYTES = 3 * 1024 * 1024;

const TIMESTAMP = 'tag:yaml.org,2002:timestamp';

/**
 * YAML 1.1 as go-yaml v2 reads it into the reference's maps: repeated keys keep the last value,
 * and timestamps stay the strings they were written as (not Dates).
 */
const YAML_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  version: '1.1',
  uniqueKeys: false,
  customTags: (tags) => tags.map((t) => (typeof t === 'object' && t.tag === TIMESTAMP ? { ...(t as ScalarTag), resolve: (source: string) => source } : t)),
};

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

export function parseJson(text: string): unknown {
  return JSON.parse(text);
}

function unrecognized(kind: string, why: string, text: string): StatusError {
  return badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; json parse error: ${why} (${excerpt(text)})`);
}

/** Decodes an object body of a POST/PUT. `kind` names the expected kind in messages. */
export function decodeObject(body: Buffer, mediaType: string, kind: string): JsonObject {
  const text = body.toString('utf8');
  let value: unknown;
  if (mediaType === 'application/yaml') {
    try {
      value = parseYaml(text, YAML_OPTIONS);
    } catch (err) {
      throw badRequest(`the object provided is unrecognized (must be of type ${kind}): couldn't get version/kind; yaml parse error: ${(err as Error).message}`);
    }
  } else {
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw unrecognized(kind, goJsonError(err, text), text);
    }
  }
  if (!isObject(value)) {
    const what = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    throw unrecognized(kind, `json: cannot unmarshal ${what} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`, text);
  }
  return value;
}

/** Decodes a patch document (any JSON value; YAML for apply). */
export function decodePatch(body: Buffer): unknown {
  const text = body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch (err) {
    throw badRequest(`error decoding patch: ${goJsonError(err, text)}`);
  }
}
