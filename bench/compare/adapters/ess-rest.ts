/**
 * `ess` through its REST gateway (docs/contract.md "REST routes"): log in once as admin, then
 * POST /v1/streams/{id}/append with an exact expected_revision and GET /v1/streams/{id}.
 *
 * The client is undici's Pool (the HTTP/1.1 client Node's own fetch is built on) with one
 * keep-alive connection per concurrent request and no pipelining, driven through its low-level
 * `dispatch` API: the same requests node:http sent, with the same checks of status and body, for
 * ~25-35% less load-generator CPU per request on this 2-core machine (docs/performance-findings.md),
 * so the generator takes less of the CPU the server under test needs. node:http with a keep-alive
 * agent cost almost a full core at c=64; the built-in fetch costs more than either.
 * The event's JSON text is spliced into the body as is, never parsed and re-serialized.
 */
import { Pool, type Dispatcher } from "undici";
import type { SystemAdapter } from "../adapter.js";
import { eventType } from "../workload.js";

interface Response {
  status: number;
  body: string;
}

export class EssRestAdapter implements SystemAdapter {
  private readonly pool: Pool;
  private token = "";

  constructor(
    baseUrl: string,
    private readonly password: string,
    connectionsMax: number,
  ) {
    this.pool = new Pool(baseUrl, { connections: connectionsMax, pipelining: 1 });
  }

  private request(method: "GET" | "POST", path: string, body?: string): Promise<Response> {
    const headers: Record<string, string> = {};
    if (this.token !== "") headers.authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    return new Promise((resolve, reject) => {
      let status = 0;
      const chunks: Buffer[] = [];
      const handler: Dispatcher.DispatchHandler = {
        // Present so undici takes this for a handler of its current API (it checks this method).
        onRequestStart: () => {},
        onResponseStart: (_controller, statusCode) => {
          status = statusCode;
        },
        onResponseData: (_controller, chunk) => {
          chunks.push(chunk);
        },
        onResponseEnd: () => {
          const text =
            chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
          resolve({ status, body: text });
        },
        onResponseError: (_controller, error) => reject(error),
      };
      this.pool.dispatch({ method, path, headers, body: body ?? null }, handler);
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
    return this.pool.close();
  }
}
