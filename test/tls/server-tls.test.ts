// The TLS material on its own (src/tls/server-tls.ts): a chain loads with its leaf's fingerprint,
// an encrypted or foreign key is refused naming SERVICE_TLS_KEY_FILE, and a reload replaces the
// pair for its followers only when the new pair is good.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync } from "node:fs";
import { ConfigError } from "../../src/config/config.js";
import { ServerTls, readTlsPair, type TlsPair } from "../../src/tls/server-tls.js";
import { createTestCa } from "../helpers/tls-certs.js";

function refusedFor(setting: string, reason: RegExp): (error: unknown) => boolean {
  return (error) => {
    assert.ok(error instanceof ConfigError, String(error));
    assert.equal(error.setting, setting);
    assert.match(error.message, reason);
    return true;
  };
}

test("a chain loads, its leaf's fingerprint is the pair's; an encrypted key is refused", () => {
  const ca = createTestCa();
  try {
    const cert = ca.issue("leaf");
    const pair = readTlsPair({ certFile: cert.chainFile, keyFile: cert.keyFile });
    assert.equal(pair.fingerprint256, cert.fingerprint256);
    const encrypted = ca.file("encrypted.key");
    execFileSync("/usr/bin/openssl", [
      "pkcs8", "-topk8", "-in", cert.keyFile, "-out", encrypted, "-passout", "pass:secret-pass",
    ]); // prettier-ignore
    assert.throws(
      () => readTlsPair({ certFile: cert.certFile, keyFile: encrypted }),
      refusedFor("SERVICE_TLS_KEY_FILE", /encrypted/),
    );
    assert.throws(
      () =>
        readTlsPair({ certFile: cert.certFile, keyFile: ca.file("empty.key", "-----BEGIN NOTHING-----\n") }),
      refusedFor("SERVICE_TLS_KEY_FILE", /no PEM private key/),
    );
  } finally {
    ca.remove();
  }
});

test("reload: a good pair reaches every follower, a bad one throws and the old pair stays", () => {
  const ca = createTestCa();
  try {
    const first = ca.issue("first");
    const second = ca.issue("second");
    const files = { certFile: ca.file("live.pem"), keyFile: ca.file("live.key") };
    copyFileSync(first.certFile, files.certFile);
    copyFileSync(first.keyFile, files.keyFile);
    const tls = ServerTls.load(files);
    const heard: TlsPair[] = [];
    tls.onChange((pair) => heard.push(pair));
    copyFileSync(second.certFile, files.certFile);
    assert.throws(() => tls.reload(), refusedFor("SERVICE_TLS_KEY_FILE", /does not match/));
    assert.equal(tls.pair.fingerprint256, first.fingerprint256);
    assert.equal(heard.length, 0);
    copyFileSync(second.keyFile, files.keyFile);
    tls.reload();
    assert.equal(tls.pair.fingerprint256, second.fingerprint256);
    assert.deepEqual(
      heard.map((p) => p.fingerprint256),
      [second.fingerprint256],
    );
  } finally {
    ca.remove();
  }
});
