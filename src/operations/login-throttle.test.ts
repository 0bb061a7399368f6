// The login throttle's bookkeeping on its own, on a clock the test moves.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { EssError } from "../errors.js";
import { limits } from "../limits.js";
import { LoginThrottle, addressKey } from "./login-throttle.js";

/** A login that goes ahead and fails. */
function fail(throttle: LoginThrottle, username: string, address: string | null): void {
  throttle.failed(throttle.begin(username, address));
}

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 1_000_000;
  return { now: () => t, advance: (ms) => (t += ms) };
}

/** The seconds `begin` asks to wait, or 0 when the login may go ahead (then abandoned). */
function waitSeconds(throttle: LoginThrottle, username: string, address: string | null): number {
  try {
    throttle.abandoned(throttle.begin(username, address));
    return 0;
  } catch (error) {
    assert.ok(error instanceof EssError && error.code === "RATE_LIMITED");
    return error.details.retry_after_seconds as number;
  }
}

test("the back-off doubles per failure past the free ones, up to the maximum", () => {
  const c = clock();
  const throttle = new LoginThrottle({ now: c.now });
  const waits: number[] = [];
  for (let i = 0; i < 14; i++) {
    c.advance(limits.loginBackoffMaxMs);
    fail(throttle, "ann", null);
    waits.push(waitSeconds(throttle, "ann", null));
  }
  assert.deepEqual(waits, [0, 0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300]);
});

test("failures are forgotten a while after the last one", () => {
  const c = clock();
  const throttle = new LoginThrottle({ now: c.now });
  for (let i = 0; i < 3; i++) fail(throttle, "ann", "10.0.0.1");
  assert.equal(waitSeconds(throttle, "ann", "10.0.0.9"), 1);
  c.advance(limits.loginFailuresForgetMs);
  assert.equal(waitSeconds(throttle, "ann", "10.0.0.9"), 0);
  fail(throttle, "ann", "10.0.0.1");
  assert.equal(waitSeconds(throttle, "ann", "10.0.0.9"), 0, "counting starts again from one");
});

test("each table holds at most its capacity, dropping the least recently failed entry", () => {
  const c = clock();
  const throttle = new LoginThrottle({ now: c.now, entriesMax: 1_000 });
  for (let i = 0; i < 3; i++) fail(throttle, "target", "10.0.0.1");
  for (let i = 0; i < 100_000; i++) {
    fail(throttle, randomUUID(), `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    if (i === 998) assert.equal(waitSeconds(throttle, "target", null), 1, "still held while there is room");
  }
  assert.deepEqual(throttle.sizes, { usernames: 1_000, addresses: 1_000 });
  assert.equal(waitSeconds(throttle, "target", null), 0, "pushed out by 1,000 newer failures");
});

test("once failed, a username has only as many logins in flight as it has free failures left", () => {
  const c = clock();
  const throttle = new LoginThrottle({ now: c.now });
  const burst = [throttle.begin("ann", null), throttle.begin("ann", null), throttle.begin("ann", null)];
  assert.equal(burst.length, 3, "no failure yet: a burst goes through");
  for (const attempt of burst) throttle.abandoned(attempt);
  fail(throttle, "ann", null);
  const first = throttle.begin("ann", null);
  const second = throttle.begin("ann", null);
  assert.equal(waitSeconds(throttle, "ann", null), 1, "two free failures left, two in flight");
  throttle.failed(first);
  assert.equal(waitSeconds(throttle, "ann", null), 1, "one left, one in flight");
  throttle.succeeded(second);
  assert.equal(waitSeconds(throttle, "ann", null), 0);
});

test("addresses are counted per IPv4 address and per IPv6 /64", () => {
  assert.equal(addressKey(null), null);
  assert.equal(addressKey(""), null);
  assert.equal(addressKey("192.0.2.7"), "192.0.2.7");
  assert.equal(addressKey("::ffff:192.0.2.7"), "192.0.2.7");
  assert.equal(addressKey("2001:db8:1:2:3:4:5:6"), "2001:db8:1:2::/64");
  assert.equal(addressKey("2001:db8:1:2::9"), "2001:db8:1:2::/64");
  assert.equal(addressKey("2001:0db8::1"), "2001:db8:0:0::/64");
  assert.equal(addressKey("::1"), "0:0:0:0::/64");
  assert.equal(addressKey("fe80::1%eth0"), "fe80:0:0:0::/64");

  const throttle = new LoginThrottle({ addressFreeFailures: 2 });
  fail(throttle, "a", "2001:db8:1:2::1");
  fail(throttle, "b", "2001:db8:1:2::2");
  assert.equal(waitSeconds(throttle, "c", "2001:db8:1:2:ffff::3"), 1, "the same /64");
  assert.equal(waitSeconds(throttle, "c", "2001:db8:1:3::1"), 0, "another /64");
});
