// Certificates made at test time with openssl: a test CA and server certificates it signs for
// 127.0.0.1 and localhost, in a temporary directory. Nothing is checked in.
import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const openssl = process.env.ESS_TEST_OPENSSL ?? "/usr/bin/openssl";

export interface ServerCert {
  /** The server certificate alone (PEM). */
  certFile: string;
  /** The server certificate followed by the CA's: a chain. */
  chainFile: string;
  keyFile: string;
  /** SHA-256 fingerprint as node's TLS sockets report it (AA:BB:...). */
  fingerprint256: string;
}

export interface TestCa {
  dir: string;
  /** The CA certificate (PEM): what a client trusts. */
  caFile: string;
  ca: Buffer;
  /** Signs a new server certificate (a new key each time) for 127.0.0.1 and localhost. */
  issue(name: string): ServerCert;
  /** A path in the directory for a test's own file. */
  file(name: string, content?: string | Buffer): string;
  remove(): void;
}

function run(args: string[]): void {
  execFileSync(openssl, args, { stdio: ["ignore", "ignore", "pipe"] });
}

/** A fresh CA in a new temporary directory. */
export function createTestCa(): TestCa {
  const dir = mkdtempSync(join(tmpdir(), "ess-tls-"));
  const caKey = join(dir, "ca.key");
  const caFile = join(dir, "ca.pem");
  const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];
  run([
    "req", "-x509", ...ec, "-keyout", caKey, "-out", caFile, "-days", "2", "-subj", "/CN=ess test CA",
    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
  ]); // prettier-ignore
  const extFile = join(dir, "server.ext");
  writeFileSync(
    extFile,
    "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n" +
      "subjectAltName=DNS:localhost,IP:127.0.0.1\n",
  );
  let serial = 1;
  return {
    dir,
    caFile,
    ca: readFileSync(caFile),
    issue(name) {
      const keyFile = join(dir, `${name}.key`);
      const csr = join(dir, `${name}.csr`);
      const certFile = join(dir, `${name}.pem`);
      run(["req", "-new", ...ec, "-keyout", keyFile, "-out", csr, "-subj", `/CN=localhost ${name}`]);
      run([
        "x509", "-req", "-in", csr, "-CA", caFile, "-CAkey", caKey, "-set_serial", String(serial++),
        "-days", "2", "-extfile", extFile, "-out", certFile,
      ]); // prettier-ignore
      const chainFile = join(dir, `${name}-chain.pem`);
      writeFileSync(chainFile, Buffer.concat([readFileSync(certFile), readFileSync(caFile)]));
      const fingerprint256 = new X509Certificate(readFileSync(certFile)).fingerprint256;
      return { certFile, chainFile, keyFile, fingerprint256 };
    },
    file(name, content) {
      const path = join(dir, name);
      if (content !== undefined) writeFileSync(path, content);
      return path;
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
