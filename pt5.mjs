import "@grpc/grpc-js"; import "@grpc/proto-loader";
await import("/work/scratch/probe/promise-test.mjs");
