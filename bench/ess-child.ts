/**
 * Starts a real `ess serve` child process for a benchmark: a fresh data directory, listeners on
 * 127.0.0.1 port 0, and the address it listens on read from its "service started" log line.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export interface EssChildOptions {
  dataDir: string;
  adminPassword: string;
  /** The listener whose address is returned; "rest" also enables the REST gateway. */
  listener: "rpc" | "rest";
  /** The CLI to run; default this build's dist/src/cli/main.js. */
  cli?: string;
  /** Extra node arguments (e.g. --cpu-prof). */
  nodeArgs?: string[];
}

export interface EssChild {
  /** host:port of the chosen listener. */
  address: string;
  /** SIGTERM, then waits for the process to exit. */
  stop: () => Promise<void>;
}

export async function startEssChild(options: EssChildOptions): Promise<EssChild> {
  const cli = options.cli ?? fileURLToPath(new URL("../src/cli/main.js", import.meta.url));
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), cli, "serve"], {
    env: {
      ...process.env,
      SERVICE_DATA_DIR: options.dataDir,
      SERVICE_RPC_ADDRESS: "127.0.0.1:0",
      ...(options.listener === "rest"
        ? { SERVICE_REST_ENABLED: "true", SERVICE_REST_ADDRESS: "127.0.0.1:0" }
        : {}),
      SERVICE_ADMIN_PASSWORD: options.adminPassword,
      ESS_LOG_LEVEL: "info",
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  const started = new RegExp(`"msg":"service started".*?"${options.listener}_address":"([^"]+)"`);
  const address = await new Promise<string>((resolve, reject) => {
    let text = "";
    child.stderr.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      const match = started.exec(text);
      if (match?.[1]) resolve(match[1]);
    });
    void exited.then(() => reject(new Error(`ess serve exited: ${text}`)));
  });
  return {
    address,
    stop: async () => {
      child.kill("SIGTERM");
      await exited;
    },
  };
}
