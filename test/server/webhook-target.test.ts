/** Address checks of webhook targets, including the one at connect time that defeats DNS rebinding. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { request } from 'undici';
import { checkTarget, deliveryAgent, isBlockedAddress, literalBlocked } from '../../server/webhook-target.js';
import { startReceiver } from '../helpers/receiver.js';

describe('webhook targets', () => {
  it('classifies loopback, private, link-local, ULA, mapped and reserved addresses as blocked', () => {
    for (const a of ['127.0.0.1', '127.9.9.9', '10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fd12:3456::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::a00:1', 'ff02::1', 'not-an-ip']) {
      assert.equal(isBlockedAddress(a), true, a);
    }
    // IPv4-compatible, IPv4-translated, Teredo and the 6to4 relay anycast range (issue #17).
    for (const a of ['::127.0.0.1', '::10.0.0.1', '::ffff:0:127.0.0.1', '::ffff:0:a9fe:a9fe', '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '192.88.99.1']) assert.equal(isBlockedAddress(a), true, a);
    for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '192.169.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) assert.equal(isBlockedAddress(a), false, a);
  });

  it('refuses at connect time a host that resolves to loopback, even after it was accepted', async () => {
    const r = await startReceiver();
    const agent = deliveryAgent({ allowPrivate: false, timeoutMs: 2000 });
    try {
      const url = r.url.replace('127.0.0.1', 'localhost');
      await assert.rejects(
        request(url, { method: 'POST', body: '{}', dispatcher: agent }),
        (err: any) => err.code === 'EPRIVATETARGET',
      );
      assert.equal(r.received.length, 0, 'nothing reached the receiver');
      assert.equal(literalBlocked(new URL(r.url), false), true);
      assert.equal(literalBlocked(new URL(r.url), true), false);
      const allowed = deliveryAgent({ allowPrivate: true, timeoutMs: 2000 });
      const res = await request(url, { method: 'POST', body: '{}', dispatcher: allowed });
      await res.body.dump();
      assert.equal(res.statusCode, 200);
      await allowed.close();
      assert.equal((await checkTarget(url, true)).hostname, 'localhost');
      await assert.rejects(checkTarget(url, false), /loopback, private or reserved/);
    } finally {
      await agent.close();
      await r.close();
    }
  });
});
