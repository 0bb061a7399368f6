/**
 * `npm run bench`: runs every benchmark in turn and prints one JSON result each. Add a
 * benchmark by adding its entry to `benches`. Results go to BENCHMARKS.md by hand, with the
 * machine and date (and whether the CPU was shared while measuring).
 */
import { cpus } from "node:os";
import { runFanoutBench } from "./fanout-bench.js";
import { runRestBench, runRestBenchOnPostgres } from "./rest-bench.js";
import { runRpcBench } from "./rpc-bench.js";
import { runStorageBench } from "./storage-bench.js";
import { runPostgresStorageBench, runRpcBenchOnPostgres } from "./postgres-storage-bench.js";

const benches: { name: string; run: () => Promise<unknown> }[] = [
  {
    name: "storage (log engine in-process: durable appends c=1/16/64, 100-event reads)",
    run: () => runStorageBench(),
  },
  { name: "fanout (WebSocket, 100 subscribers)", run: () => runFanoutBench() },
  { name: "rpc (gRPC appends and 100-event reads, c=1/16/64)", run: () => runRpcBench() },
  { name: "rest (REST appends and 100-event reads, c=1/16/64, autocannon)", run: () => runRestBench() },
  // These four need PostgreSQL on ESS_BENCH_PG (default postgres://postgres@127.0.0.1:5432).
  { name: "storage, log and postgres engines in-process (c=1/16/64)", run: () => runPostgresStorageBench() },
  { name: "rpc on the postgres engine (c=1/16/64)", run: () => runRpcBenchOnPostgres() },
  {
    name: "rest on the postgres engine (c=1/16/64, autocannon)",
    run: () => runRestBenchOnPostgres(),
  },
  {
    name: "fanout on the postgres engine (WebSocket, 100 subscribers)",
    run: () => runFanoutBench({ storage: "postgres" }),
  },
];

const machine = { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version };
for (const bench of benches) {
  const result = await bench.run();
  console.log(JSON.stringify({ bench: bench.name, date: new Date().toISOString(), ...machine, result }));
}
