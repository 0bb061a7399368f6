import { test } from "node:test";
import assert from "node:assert/strict";
import { CounterRates } from "../../console/src/lib/rates.js";

test("rates come from the difference of totals over the time between samples", () => {
  const rates = new CounterRates();
  const first = rates.update(0, [{ tenant_id: "a", appends_total: 100, reads_total: 10 }]);
  assert.deepEqual(first.get("a"), { appendsPerSecond: null, readsPerSecond: null });
  const second = rates.update(2000, [
    { tenant_id: "a", appends_total: 300, reads_total: 11 },
    { tenant_id: "b", appends_total: 5, reads_total: 5 },
  ]);
  assert.deepEqual(second.get("a"), { appendsPerSecond: 100, readsPerSecond: 0.5 });
  assert.deepEqual(second.get("b"), { appendsPerSecond: null, readsPerSecond: null });
});

test("a total that went down (the service restarted) has no rate and becomes the new base", () => {
  const rates = new CounterRates();
  rates.update(0, [{ tenant_id: "a", appends_total: 100, reads_total: 100 }]);
  assert.deepEqual(rates.update(1000, [{ tenant_id: "a", appends_total: 3, reads_total: 200 }]).get("a"), {
    appendsPerSecond: null,
    readsPerSecond: 100,
  });
  assert.deepEqual(rates.update(2000, [{ tenant_id: "a", appends_total: 13, reads_total: 200 }]).get("a"), {
    appendsPerSecond: 10,
    readsPerSecond: 0,
  });
});
