// TLS on every listener of a real service (log engine), through real TLS clients: grpc-js with the
// test CA on the RPC port in both carrier modes (the fast carrier's own methods and those it hands
// to grpc-js), node's https on REST, the `ws` client on the WebSocket listener and on the REST
// listener's upgrade; and plaintext clients, which fail cleanly instead of hanging.
import { copyFileSync } from "node:fs";
import { test } from "node:test";
import assert from "node:assert/strict";
import { checkPlaintextFails, checkRest, checkRpc, checkWss, events } from "./tls-checks.js";
import { startTlsService } from "./tls-harness.js";
import { peerFingerprint } from "./tls-clients.js";

for (const fastCarrier of ["true", "false"]) {
  test(`with TLS, every listener serves TLS only (SERVICE_RPC_FAST_CARRIER=${fastCarrier})`, async () => {
    const t = await startTlsService({ SERVICE_RPC_FAST_CARRIER: fastCarrier });
    try {
      await checkRpc(t);
      await checkRest(t);
      await checkWss(t, t.wsPort);
      // The REST listener's upgrade is WSS too.
      await checkWss(t, t.restPort);
      await checkPlaintextFails(t);
      // The KurrentDB-protocol listener serves the same certificate.
      assert.equal(await peerFingerprint(t.kurrentPort, t.ca.ca, "h2"), t.cert.fingerprint256);
    } finally {
      await t.close();
    }
  });
}

test("reloading the pair in process: new connections get the new certificate, open ones keep working", async () => {
  const t = await startTlsService({ SERVICE_RPC_FAST_CARRIER: "false" });
  try {
    await t.client.append(t.admin, { stream_id: "tls-1", events: events(1) });
    const second = t.ca.issue("second");
    // The harness's files are rewritten in place, as an operator renews them.
    copyFileSync(second.chainFile, t.cert.chainFile);
    copyFileSync(second.keyFile, t.cert.keyFile);
    assert.equal(t.service.reloadTls(), true);
    // grpc-js alone: its servers got the new pair through the certificate provider.
    assert.equal(await peerFingerprint(t.rpcPort, t.ca.ca, "h2"), second.fingerprint256);
    assert.equal(await peerFingerprint(t.restPort, t.ca.ca, "http/1.1"), second.fingerprint256);
    assert.equal(await peerFingerprint(t.wsPort, t.ca.ca, "http/1.1"), second.fingerprint256);
    assert.equal(await peerFingerprint(t.kurrentPort, t.ca.ca, "h2"), second.fingerprint256);
    // The client's connection from before the reload still serves calls.
    const read = await t.client.read(t.admin, { stream_id: "tls-1" });
    assert.equal(read.events.length, 1);
  } finally {
    await t.close();
  }
});
