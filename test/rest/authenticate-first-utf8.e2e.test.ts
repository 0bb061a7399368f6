/**
 * Two rules of the contract over real HTTP, in both gateway modes (in-process, and a separate
 * gateway reaching the service through gRPC as `ess gateway --upstream` does), which must answer
 * alike:
 * - a request is authenticated before its body is read, parsed or validated: without a valid
 *   token it is 401 whatever it holds, and the gateway does not wait for a body it will not read;
 * - text that is not valid UTF-8 (raw bytes, a lone surrogate escape) is refused with 400
 *   INVALID_ARGUMENT and nothing is stored, never replaced with U+FFFD.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { adminPassword, gatewayModes, http, login, startTarget, type RestTarget } from "./harness.js";

interface Target {
  target: RestTarget;
  admin: string;
}

const targets: Target[] = [];

before(async () => {
  for (const mode of gatewayModes) {
    const target = await startTarget(mode);
    targets.push({ target, admin: await login(target, "admin", adminPassword) });
  }
});

after(async () => {
  for (const { target } of targets) await target.stop();
});

/** A request with a raw body (bytes as given), its status and parsed error body. */
async function send(
  target: RestTarget,
  method: string,
  path: string,
  token: string | null,
  body: string | Buffer | null,
): Promise<{ status: number; body: { error?: { code: string; message: string; details: unknown } } }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token !== null) headers.authorization = `Bearer ${token}`;
  const response = await fetch(target.baseUrl + path, { method, headers, body: body ?? undefined });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as never };
}

/** Runs `check` in both modes and asserts both answered the same. */
async function inBothModes<T>(check: (t: Target) => Promise<T>): Promise<T> {
  const answers: T[] = [];
  for (const t of targets) answers.push(await check(t));
  assert.deepEqual(answers[1], answers[0], "both gateway modes answer alike");
  return answers[0]!;
}

test("without a valid token a request is 401 whatever its body holds", async () => {
  await inBothModes(async ({ target, admin }) => {
    // A user that is then deleted: its token verifies but names no one.
    const created = await http(target, "POST", "/v1/admin/users", {
      token: admin,
      body: { username: "gone", password: "gone-password", tenant_id: "acme", role: "writer" },
    });
    assert.equal(created.status, 201, created.text);
    const gone = await login(target, "gone", "gone-password");
    assert.equal((await http(target, "DELETE", "/v1/admin/users/gone", { token: admin })).status, 200);

    const answers = [];
    for (const token of [null, "not-a-token", gone]) {
      for (const body of ["{not json", '{"event_type": 7}', '{"events": []}', "[]"]) {
        const answer = await send(target, "POST", "/v1/streams/%24bad/append", token, body);
        answers.push([answer.status, answer.body.error?.code]);
      }
      const users = await send(target, "POST", "/v1/admin/users", token, '{"username": "!"}');
      answers.push([users.status, users.body.error?.code]);
    }
    for (const answer of answers) assert.deepEqual(answer, [401, "UNAUTHENTICATED"]);
    await http(target, "POST", "/v1/admin/users", {
      token: admin,
      body: { username: "gone", password: "gone-password", tenant_id: "acme", role: "writer" },
    });
    await http(target, "DELETE", "/v1/admin/users/gone", { token: admin });
    return answers;
  });
});

test("a bad token is answered 401 at once, without waiting for the body it announced", async () => {
  await inBothModes(async ({ target }) => {
    const { hostname, port } = new URL(target.baseUrl);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: hostname, port: Number(port) });
      let text = "";
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error("no answer within 3 s: the gateway waited for the body"));
      }, 3000);
      socket.on("data", (chunk: Buffer) => {
        text += chunk.toString("latin1");
        if (text.includes("\r\n\r\n")) {
          clearTimeout(timer);
          socket.destroy();
          resolve(text);
        }
      });
      socket.on("error", reject);
      // Three MiB announced, none sent.
      socket.write(
        "POST /v1/streams/s/append HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer not-a-token\r\n" +
          `Content-Type: application/json\r\nContent-Length: ${3 * 1024 * 1024}\r\n\r\n`,
      );
    });
    const status = answer.split("\r\n")[0];
    assert.equal(status, "HTTP/1.1 401 Unauthorized");
    return status;
  });
});

test("the Authorization header is read by the one rule of every interface", async () => {
  await inBothModes(async ({ target, admin }) => {
    // Tab as separator and trailing blanks: accepted, as on gRPC and WebSocket.
    const ok = await http(target, "GET", "/v1/streams", { headers: { authorization: `bearer\t${admin} ` } });
    assert.equal(ok.status, 200, ok.text);
    const refused = [];
    for (const header of ["Bearer", "Bearer a b", "Basic dXNlcjpwYXNz", `Bearer\n${admin}`]) {
      const answer = await http(target, "GET", "/v1/streams", { headers: { authorization: header } }).catch(
        () => null,
      );
      if (answer === null) continue; // fetch itself refuses a header with a line feed.
      assert.equal(answer.status, 401, header);
      refused.push((answer.body as { error: { message: string } }).error.message);
    }
    return refused;
  });
});

test("a lone surrogate escape in event_type, in a data string or a data key is 400 and stores nothing", async () => {
  await inBothModes(async ({ target, admin }) => {
    const bodies = [
      '{"event_type": "E\\ud800", "data": {}}',
      '{"event_type": "E", "data": {"s": "x\\udbff"}}',
      '{"event_type": "E", "data": {"\\udc00": 1}}',
      '{"event_type": "E", "data": {"a": ["ok", {"b": "\\ud800\\ud800"}]}}',
      '{"event_type": "E", "data": {}, "metadata": {"m": "\\udfff"}}',
      '{"events": [{"event_type": "E", "data": {}}, {"event_type": "\\ud800", "data": {}}]}',
    ];
    const answers = [];
    for (const body of bodies) {
      const answer = await send(target, "POST", "/v1/streams/utf8-esc/append", admin, body);
      assert.equal(answer.status, 400, `${body}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.error?.code, "INVALID_ARGUMENT", body);
      assert.match(answer.body.error?.message ?? "", /not valid UTF-8/);
      answers.push(answer);
    }
    const read = await http(target, "GET", "/v1/streams/utf8-esc", { token: admin });
    assert.equal(read.status, 404, "nothing was stored");
    // A surrogate pair is valid: stored and read back as sent.
    const pair = await send(
      target,
      "POST",
      "/v1/streams/utf8-pair/append",
      admin,
      '{"event_type": "E\\ud83d\\ude00", "data": {"s": "\\ud83d\\ude00"}}',
    );
    assert.equal(pair.status, 200);
    const back = await http(target, "GET", "/v1/streams/utf8-pair", { token: admin });
    const event = (back.body as { events: { event_type: string; data: unknown }[] }).events[0];
    assert.deepEqual([event?.event_type, event?.data], ["E\u{1F600}", { s: "\u{1F600}" }]);
    await http(target, "DELETE", "/v1/streams/utf8-pair?tombstone=true", { token: admin });
    return answers;
  });
});

test("raw bytes that are not UTF-8 in a body are 400 and store nothing", async () => {
  await inBothModes(async ({ target, admin }) => {
    const around = (bytes: number[]) =>
      Buffer.concat([
        Buffer.from('{"event_type": "E", "data": {"s": "a'),
        Buffer.from(bytes),
        Buffer.from('"}}'),
      ]);
    const answers = [];
    for (const bytes of [[0xff], [0xed, 0xa0, 0x80], [0xc3]]) {
      const answer = await send(target, "POST", "/v1/streams/utf8-raw/append", admin, around(bytes));
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.equal(answer.body.error?.code, "INVALID_ARGUMENT");
      answers.push(answer);
    }
    const read = await http(target, "GET", "/v1/streams/utf8-raw", { token: admin });
    assert.equal(read.status, 404, "nothing was stored");
    return answers;
  });
});

test("credentials and ids that are not UTF-8 are 400", async () => {
  await inBothModes(async ({ target, admin }) => {
    const answers = [];
    for (const [method, path, body] of [
      ["POST", "/v1/auth/login", '{"username": "admin", "password": "admin-password-1\\ud800"}'],
      [
        "POST",
        "/v1/admin/users",
        '{"username": "u1", "password": "password\\udc00", "tenant_id": "acme", "role": "reader"}',
      ],
      [
        "POST",
        "/v1/admin/users",
        '{"username": "u1", "password": "password-1", "tenant_id": "acme\\ud800", "role": "reader"}',
      ],
      // Percent-encoded bytes that are not UTF-8 in a path id (a query value that is not valid
      // percent-encoding is taken as the literal text it is, never replaced).
      ["GET", "/v1/streams/sur%ED%A0%80", null],
      ["GET", "/v1/streams/a%FF/info", null],
    ] as const) {
      const answer = await send(
        target,
        method,
        path,
        method === "GET" || path.includes("users") ? admin : null,
        body,
      );
      assert.equal(answer.status, 400, `${method} ${path}: ${JSON.stringify(answer.body)}`);
      assert.equal(answer.body.error?.code, "INVALID_ARGUMENT", path);
      answers.push(answer);
    }
    return answers;
  });
});
