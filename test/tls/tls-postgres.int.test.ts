// TLS on the postgres engine: the same service with SERVICE_STORAGE=postgres serves TLS on every
// listener (gRPC through the fast carrier and the hop, HTTPS, WSS on both listeners), and a
// plaintext client fails cleanly.
import { after, before, test } from "node:test";
import { createTestDatabase, type TestDatabase } from "../storage/postgres-test-database.js";
import { checkPlaintextFails, checkRest, checkRpc, checkWss } from "./tls-checks.js";
import { startTlsService, type TlsService } from "./tls-harness.js";

let db: TestDatabase;
let t: TlsService;

before(async () => {
  db = await createTestDatabase();
  t = await startTlsService({ SERVICE_STORAGE: "postgres", SERVICE_POSTGRES_URL: db.url });
});

after(async () => {
  await t?.close();
  await db?.drop();
});

test("with TLS on the postgres engine, every listener serves TLS only", async () => {
  await checkRpc(t);
  await checkRest(t);
  await checkWss(t, t.wsPort);
  await checkWss(t, t.restPort);
  await checkPlaintextFails(t);
});
