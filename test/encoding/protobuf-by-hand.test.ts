// Protobuf bytes derived by hand from the generated.proto field numbers (not from capstan's
// encoder): runtime.Unknown{typeMeta=1{apiVersion=1,kind=2}, raw=2, contentEncoding=3, contentType=4}
// around core/v1 ConfigMap{metadata=1 ObjectMeta{name=1, namespace=3, ...}, data=2 map<string,string>}.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeProtobufObject } from '../../src/encoding/protobuf.js';
import { encodeProtobufObject } from '../../src/encoding/protobuf-encode.js';

/** A length-delimited field: tag (field << 3 | 2), length, bytes. */
function ld(field: number, bytes: Buffer): Buffer {
  return Buffer.concat([Buffer.from([(field << 3) | 2, bytes.length]), bytes]);
}
const str = (field: number, s: string) => ld(field, Buffer.from(s));

describe('Protobuf by hand', () => {
  // ObjectMeta, as Go writes it: every non-pointer field, even empty — name (1) "cm", generateName (2),
  // namespace (3) "ns", selfLink (4), uid (5), resourceVersion (6), generation (7, varint 0),
  // creationTimestamp (8, an empty Time message).
  const objectMeta = Buffer.concat([str(1, 'cm'), str(2, ''), str(3, 'ns'), str(4, ''), str(5, ''), str(6, ''), Buffer.from([(7 << 3) | 0, 0]), ld(8, Buffer.alloc(0))]);
  // data (2): map entries {key = 1, value = 2}
  const configMap = Buffer.concat([ld(1, objectMeta), ld(2, Buffer.concat([str(1, 'k'), str(2, 'v')]))]);
  const envelope = Buffer.concat([
    Buffer.from([0x6b, 0x38, 0x73, 0x00]),
    ld(1, Buffer.concat([str(1, 'v1'), str(2, 'ConfigMap')])),
    ld(2, configMap),
    str(3, ''),
    str(4, ''),
  ]);
  const json = { kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm', namespace: 'ns', creationTimestamp: null }, data: { k: 'v' } };

  it('decodes the hand-made bytes to the ConfigMap', () => {
    const { object } = decodeProtobufObject(envelope);
    assert.equal(object['kind'], 'ConfigMap');
    assert.deepEqual((object['metadata'] as Record<string, unknown>)['name'], 'cm');
    assert.deepEqual(object['data'], { k: 'v' });
  });

  it('encodes the ConfigMap to exactly the hand-made bytes', () => {
    assert.deepEqual([...encodeProtobufObject(json)], [...envelope]);
  });
});
