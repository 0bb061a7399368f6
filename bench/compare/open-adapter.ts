/** Opens the adapter a Target names, connected and ready for the first command. */
import type { SystemAdapter, Target } from "./adapter.js";
import { EssGrpcAdapter } from "./adapters/ess-grpc.js";
import { EssGrpcSessionAdapter } from "./adapters/ess-grpc-session.js";
import { EssRestAdapter } from "./adapters/ess-rest.js";
import { NatsAdapter } from "./adapters/nats.js";
import { PostgresAdapter } from "./adapters/postgres.js";
import { RedisAdapter } from "./adapters/redis.js";

/** Sockets the REST adapter may open: one per concurrent request at the highest concurrency. */
const restSocketsMax = 64;

export async function openAdapter(target: Target): Promise<SystemAdapter> {
  switch (target.system) {
    case "postgres":
      return new PostgresAdapter(target.url, target.schema, target.poolSize);
    case "redis": {
      const redis = new RedisAdapter(target.port);
      await redis.connect();
      return redis;
    }
    case "nats": {
      const nats = new NatsAdapter(target.port, target.streamName);
      await nats.connect();
      return nats;
    }
    case "ess-rest": {
      const rest = new EssRestAdapter(target.baseUrl, target.password, restSocketsMax);
      await rest.login();
      return rest;
    }
    case "ess-grpc": {
      const grpc = new EssGrpcAdapter(target.address, target.password);
      await grpc.login();
      return grpc;
    }
    case "ess-kurrent": {
      // Loaded only for its row: the KurrentDB client starts a native runtime (its reads' bridge)
      // that would take CPU from every other row's load generator and server.
      const { EssKurrentAdapter } = await import("./adapters/ess-kurrent.js");
      return new EssKurrentAdapter(target.address, target.password);
    }
    case "ess-grpc-session": {
      const session = new EssGrpcSessionAdapter(target.address, target.password);
      await session.login();
      return session;
    }
  }
}
