/**
 * GET /v1/events backward and filtered, end to end in both gateway modes (in-process, and
 * `ess gateway` over gRPC, which carries the filters in ReadAllRequest): answers, paging, and the
 * 400s of a bad filter.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { limits } from "../../src/limits.js";
import {
  adminPassword,
  gatewayModes,
  http,
  login,
  responseValidators,
  startTarget,
  type RestTarget,
} from "./harness.js";

interface Page {
  events: { stream_id: string; event_type: string; position: number }[];
  next_position: number | null;
  is_end: boolean;
}

const validate = responseValidators();

for (const mode of gatewayModes) {
  describe(`GET /v1/events backward and filtered (${mode})`, () => {
    let target: RestTarget;
    let token: string;
    let other: string;

    before(async () => {
      target = await startTarget(mode);
      const admin = await login(target, "admin", adminPassword);
      for (const [username, tenant_id] of [
        ["fiona", `t-${randomUUID()}`],
        ["oscar", `t-${randomUUID()}`],
      ]) {
        const created = await http(target, "POST", "/v1/admin/users", {
          token: admin,
          body: { username, password: "password-123", tenant_id, role: "writer" },
        });
        assert.equal(created.status, 201, created.text);
      }
      token = await login(target, "fiona", "password-123");
      other = await login(target, "oscar", "password-123");
      for (let i = 0; i < 12; i++) {
        const stream = i % 3 === 0 ? `orders-${i}` : `users-${i % 2}`;
        const event_type = i % 2 === 0 ? "OrderPlaced" : "UserRenamed";
        for (const who of [token, other]) {
          const appended = await http(target, "POST", `/v1/streams/${stream}/append`, {
            token: who,
            body: { event_type, data: { i } },
          });
          assert.equal(appended.status, 200, appended.text);
        }
      }
    });

    after(async () => {
      await target.stop();
    });

    async function get(query: string, as = token): Promise<Page> {
      const response = await http(target, "GET", `/v1/events?${query}`, { token: as });
      assert.equal(response.status, 200, response.text);
      assert.equal(validate("ReadAllResult", response.body), null, response.text);
      return response.body as Page;
    }

    async function all(query: string): Promise<Page["events"]> {
      const events: Page["events"] = [];
      let from = "";
      for (let pages = 0; pages < 100; pages++) {
        const page = await get(`${query}${from}`);
        events.push(...page.events);
        if (page.is_end) return events;
        from = `&from_position=${page.next_position}`;
      }
      throw new Error("paging does not end");
    }

    test("backward from the end and from a position, paging to the first event", async () => {
      const forward = await all("limit=1000");
      assert.equal(forward.length, 12);
      const backward = await all("direction=backward&limit=5");
      assert.deepEqual(backward, [...forward].reverse());
      const from = await get(`direction=backward&limit=2&from_position=${forward[5]!.position}`);
      assert.deepEqual(
        from.events.map((e) => e.position),
        [forward[5]!.position, forward[4]!.position],
      );
      assert.equal(from.is_end, false);
    });

    test("prefix lists, regexes and their combination filter the tenant's events", async () => {
      const forward = await all("limit=1000");
      const cases: [string, (e: Page["events"][number]) => boolean][] = [
        ["stream_prefix=orders-", (e) => e.stream_id.startsWith("orders-")],
        [
          "stream_prefix=orders-,users-1",
          (e) => e.stream_id.startsWith("orders-") || e.stream_id === "users-1",
        ],
        ["event_type_prefix=User", (e) => e.event_type === "UserRenamed"],
        [`stream_regex=${encodeURIComponent("^users-[0]$")}`, (e) => e.stream_id === "users-0"],
        [
          `event_type_regex=Placed&stream_prefix=users-`,
          (e) => e.event_type === "OrderPlaced" && e.stream_id.startsWith("users-"),
        ],
      ];
      for (const [query, wanted] of cases) {
        const expected = forward.filter(wanted);
        assert.ok(expected.length > 0, query);
        assert.deepEqual(await all(`${query}&limit=2`), expected, query);
        assert.deepEqual(await all(`${query}&limit=3&direction=backward`), [...expected].reverse(), query);
      }
      // An empty parameter is no filter.
      assert.deepEqual(await all("stream_prefix=&stream_regex=&limit=1000"), forward);
    });

    test("a hostile regex answers at once", async () => {
      const stream = `${"a".repeat(150)}!`;
      const appended = await http(target, "POST", `/v1/streams/${stream}/append`, {
        token,
        body: { event_type: "t", data: {} },
      });
      assert.equal(appended.status, 200, appended.text);
      const page = await get(`stream_regex=${encodeURIComponent("(a+)+$")}&limit=1000`);
      assert.ok(page.events.every((e) => e.stream_id !== stream));
      const found = await get(`stream_regex=${encodeURIComponent("^(a+)+!$")}&limit=1000`);
      assert.deepEqual(
        found.events.map((e) => e.stream_id),
        [stream],
      );
    });

    test("a bad filter is 400 INVALID_ARGUMENT naming the field", async () => {
      const tooMany = Array.from({ length: limits.filterPrefixesMax + 1 }, (_, i) => `p${i}`).join(",");
      for (const [query, field] of [
        [`stream_regex=${encodeURIComponent("(a")}`, "stream_regex"],
        [`event_type_regex=${encodeURIComponent("(?<=x)y")}`, "event_type_regex"],
        [`stream_regex=${"a".repeat(limits.filterRegexCharsMax + 1)}`, "stream_regex"],
        [`event_type_prefix=${tooMany}`, "event_type_prefix"],
        ["stream_prefix=a,,b", "stream_prefix"],
        ["direction=sideways", "direction"],
        ["from_position=-1", "from_position"],
      ] as const) {
        const response = await http(target, "GET", `/v1/events?${query}`, { token });
        assert.equal(response.status, 400, `${query}: ${response.text}`);
        const error = (response.body as { error: { code: string; details: { field?: string } } }).error;
        assert.equal(error.code, "INVALID_ARGUMENT", query);
        assert.equal(error.details.field, field, query);
      }
    });
  });
}
