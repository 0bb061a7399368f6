// The official KurrentDB client over TLS (`tls=true` with a private CA), as a networked deployment
// runs it: the listener serves the service's certificate (SERVICE_TLS_*), and the client sends
// Basic credentials on every call, so no anonymous user is needed. Run on each engine by
// ./kurrent-tls.e2e.test.ts and ./kurrent-tls-postgres.int.test.ts.
import assert from "node:assert/strict";
import {
  AccessDeniedError,
  KurrentDBClient,
  NO_STREAM,
  StreamNotFoundError,
  jsonEvent,
} from "@kurrent/kurrentdb-client";
import { createTestCa } from "../helpers/tls-certs.js";
import { adminPassword, serveKurrent, collect } from "./harness.js";

/** Runs the scenario against a service started with `settings` (the engine's) plus TLS. */
export async function kurrentOverTls(settings: Record<string, string> = {}): Promise<void> {
  const ca = createTestCa();
  const cert = ca.issue("server");
  const ess = await serveKurrent({
    ...settings,
    SERVICE_TLS_CERT_FILE: cert.chainFile,
    SERVICE_TLS_KEY_FILE: cert.keyFile,
  });
  const connect = (credentials: string): KurrentDBClient => {
    const client = KurrentDBClient.connectionString`kurrentdb://${credentials}@localhost:${String(ess.port)}?tls=true&tlsCAFile=${ca.caFile}`;
    ess.onStop(() => client.dispose());
    return client;
  };
  try {
    const client = connect(`admin:${adminPassword}`);
    const appended = await client.appendToStream("secure-1", jsonEvent({ type: "Opened", data: { n: 1 } }), {
      streamState: NO_STREAM,
    });
    assert.equal(appended.nextExpectedRevision, 0n);
    const read = await collect(client.readStream("secure-1"));
    assert.deepEqual(
      read.map((e) => e.event?.data),
      [{ n: 1 }],
    );
    const subscription = client.subscribeToStream("secure-1");
    for await (const event of subscription) {
      assert.equal(event.event?.type, "Opened");
      break;
    }
    await subscription.unsubscribe();
    await client.deleteStream("secure-1");
    await assert.rejects(collect(client.readStream("secure-1")), StreamNotFoundError);

    // Over TLS every call carries the connection string's credentials: a wrong password is refused.
    const intruder = connect("admin:not-the-password");
    await assert.rejects(
      intruder.appendToStream("secure-2", jsonEvent({ type: "T", data: {} })),
      (error: unknown) => error instanceof AccessDeniedError,
    );
    await assert.rejects(
      collect(intruder.readStream("secure-1")),
      (error: unknown) => error instanceof AccessDeniedError,
    );
  } finally {
    await ess.stop();
    ca.remove();
  }
}
