/**
 * `npm run bench`: runs every benchmark in turn and prints one JSON result each. Add a
 * benchmark by adding its entry to `benches`. Results go to BENCHMARKS.md by hand, with the
 * machine and date (and whether the CPU was shared while measuring).
 */
import { cpus } from "node:os";
import { runFanoutBench } from "./fanout-bench.js";
import { runRpcBench } from "./rpc-bench.js";

const benches: { name: string; run: () => Promise<unknown> }[] = [
  { name: "fanout (WebSocket, 100 subscribers)", run: () => runFanoutBench() },
  { name: "rpc (gRPC appends and 100-event reads, c=1/16/64)", run: () => runRpcBench() },
];

const machine = { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version };
for (const bench of benches) {
  const result = await bench.run();
  console.log(JSON.stringify({ bench: bench.name, date: new Date().toISOString(), ...machine, result }));
}
