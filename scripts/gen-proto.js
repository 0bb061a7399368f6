// Generates the TypeScript types of the .proto files into src/rpc/generated (or the directory
// given as the first argument, which the up-to-date test uses). `npm run gen:proto`.
// The ess.v1 files and the standard grpc.health.v1 file go to separate folders because the
// generator names each root file after its proto's base name, and both are health.proto.
import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";

const outDir = process.argv[2] ?? "src/rpc/generated";
const generator = join("node_modules", ".bin", "proto-loader-gen-types");
const options = [
  "--keepCase",
  "--longs=Number",
  "--enums=String",
  "--defaults",
  "--oneofs",
  "--grpcLib=@grpc/grpc-js",
  "--importFileExtension=.js",
  "-I",
  "proto",
];
const sets = [
  { dir: outDir, files: ["types", "health", "auth", "streams", "admin"].map((n) => `ess/v1/${n}.proto`) },
  { dir: join(outDir, "grpc-health"), files: ["grpc/health/v1/health.proto"] },
  // The KurrentDB listener's protocol (src/kurrent): 64-bit integers as strings, because its
  // structured UUIDs are signed 64-bit halves that a JS number cannot hold.
  {
    dir: join(outDir, "kurrent"),
    files: [
      "kurrent/shared.proto",
      "kurrent/status.proto",
      "kurrent/streams.proto",
      "kurrent/serverfeatures.proto",
    ],
    longs: "String",
  },
];

rmSync(outDir, { recursive: true, force: true });
for (const set of sets) {
  const setOptions = set.longs
    ? options.map((o) => (o === "--longs=Number" ? `--longs=${set.longs}` : o))
    : options;
  const result = spawnSync(generator, [...setOptions, "-O", set.dir, ...set.files], { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
