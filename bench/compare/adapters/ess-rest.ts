/**
 * `ess` through its REST gateway (DESIGN.md section 4): log in once as admin, then
 * POST /v1/streams/{id}/append with an exact expected_revision and GET /v1/streams/{id}.
 * Uses node:http with a keep-alive agent (one socket per concurrent request) because the
 * built-in fetch costs the load generator noticeably more CPU per request on a 2-core machine.
 * The event's JSON text is spliced into the body as is, never parsed and re-serialized.
 */
import http from "node:http";
import type { SystemAdapter } from "../adapter.js";
import { eventType } from "../workload.js";

interface Response {
  status: number;
  body: string;
}

export class EssRestAdapter implements SystemAdapter {
  private readonly agent: http.Agent;
  private readonly url: URL;
  private token = "";

  constructor(
    baseUrl: string,
    private readonly password: string,
    maxSockets: number,
  ) {
    this.url = new URL(baseUrl);
    this.agent = new http.Agent({ keepAlive: true, maxSockets });
  }

  private request(method: string, path: string, body?: string): Promise<Response> {
    return new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = {};
      if (this.token !== "") headers.authorization = `Bearer ${this.token}`;
      if (body !== undefined) {
        headers["content-type"] = "application/json";
        headers["content-length"] = Buffer.byteLength(body);
      }
      const req = http.request(
        { host: this.url.hostname, port: this.url.port, method, path, headers, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (chunk: Buffer) => chunks.push(chunk));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(body);
    });
  }

  async login(): Promise<void> {
    const res = await this.request(
      "POST",
      "/v1/auth/login",
      JSON.stringify({ username: "admin", password: this.password }),
    );
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.body}`);
    this.token = (JSON.parse(res.body) as { access_token: string }).access_token;
  }

  async append(stream: string, expectedRevision: number, json: string): Promise<void> {
    const expected = expectedRevision < 0 ? '"no_stream"' : String(expectedRevision);
    const body = `{"event_type":"${eventType}","data":${json},"expected_revision":${expected}}`;
    const res = await this.request("POST", `/v1/streams/${encodeURIComponent(stream)}/append`, body);
    if (res.status !== 200) throw new Error(`append failed: ${res.status} ${res.body}`);
  }

  async appendBatch(stream: string, jsons: string[]): Promise<void> {
    const events = jsons.map((json) => `{"event_type":"${eventType}","data":${json}}`).join(",");
    const body = `{"events":[${events}],"expected_revision":"no_stream"}`;
    const res = await this.request("POST", `/v1/streams/${encodeURIComponent(stream)}/append`, body);
    if (res.status !== 200) throw new Error(`batch append failed: ${res.status} ${res.body}`);
  }

  async read(stream: string, limit: number): Promise<number> {
    const res = await this.request("GET", `/v1/streams/${encodeURIComponent(stream)}?limit=${limit}`);
    if (res.status !== 200) throw new Error(`read failed: ${res.status} ${res.body}`);
    return (JSON.parse(res.body) as { events: unknown[] }).events.length;
  }

  close(): Promise<void> {
    this.agent.destroy();
    return Promise.resolve();
  }
}
