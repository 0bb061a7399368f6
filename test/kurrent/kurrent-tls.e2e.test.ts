// The official KurrentDB client over TLS with Basic credentials, on the log engine (./tls-scenario.ts).
import { test } from "node:test";
import { kurrentOverTls } from "./tls-scenario.js";

test("the KurrentDB client with tls=true and Basic credentials: append, read, subscribe, delete", () =>
  kurrentOverTls());
