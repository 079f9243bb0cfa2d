// The one table of options: defaults in one place, for the command line and startServer alike.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOptions } from '../../src/cmd/options.js';
import { formatDuration, withDefaults } from '../../src/server/options.js';

describe('server options', { timeout: 10_000 }, () => {
  it('fills what is not given (or given as undefined) with the defaults the flags have', () => {
    const o = withDefaults({ port: 0, certDir: undefined, historyWindowMs: undefined, insecure: true });
    assert.equal(o.port, 0);
    assert.equal(o.insecure, true);
    assert.equal(o.historyWindowMs, 300_000);
    assert.equal(o.bindAddress, '127.0.0.1');
    assert.equal(o.storage, 'sqlite');
    assert.equal(o.authorizationMode, 'RBAC');
    assert.equal(o.garbageCollector, true);
    assert.deepEqual(withDefaults({}), parseOptions([]).options);
  });

  it('gives every server its own default lists', () => {
    const a = withDefaults({});
    a.enableAdmissionPlugins.push('AlwaysDeny');
    assert.deepEqual(withDefaults({}).enableAdmissionPlugins, []);
  });

  it('prints durations as Go does', () => {
    assert.equal(formatDuration(300_000), '5m0s');
    assert.equal(formatDuration(3_600_000), '1h0m0s');
    assert.equal(formatDuration(90_000), '1m30s');
    assert.equal(formatDuration(1500), '1.5s');
    assert.equal(formatDuration(250), '250ms');
  });
});
