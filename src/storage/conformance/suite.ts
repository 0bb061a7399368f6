/**
 * The engine-neutral storage conformance suite (DESIGN.md section 7): every engine runs it
 * unchanged, through an `EngineHarness`. Each case gets a fresh empty store with a manual
 * clock and closes it afterwards; cases that prove durability reopen the store mid-way.
 *
 * Usage, in an engine's test file:
 *   runConformanceSuite("log engine", harness, { pending: { "case name": "why" } });
 *
 * Where the contract is silent the suite tests the documented choice, listed in
 * docs/storage-conformance.md.
 */
import { after, describe, test } from "node:test";
import { ManualClock, OpenStore, type EngineHarness, type SuiteOptions } from "./harness.js";
import { appendCases } from "./cases-append.js";
import { readCases } from "./cases-read.js";
import { retentionCases } from "./cases-retention.js";
import { usageCases } from "./cases-usage.js";
import { maintenanceCases } from "./cases-maintenance.js";
import { noticeCases } from "./cases-notices.js";
import { concurrencyCases } from "./cases-concurrency.js";
import { inputCases } from "./cases-input.js";
import { authCases } from "./cases-auth.js";
import { lifecycleCases } from "./cases-lifecycle.js";
import { modelCases } from "./cases-model.js";

export type { EngineHarness, SuiteOptions } from "./harness.js";

export interface CaseContext {
  readonly harness: EngineHarness;
  /** Declares a case that runs on a fresh store opened with `clock`; the store is closed after. */
  readonly test: (
    name: string,
    body: (store: OpenStore, clock: ManualClock) => Promise<void>,
    options?: { fullLimits?: boolean },
  ) => void;
}

export function runConformanceSuite(name: string, harness: EngineHarness, options: SuiteOptions = {}): void {
  const pending = options.pending ?? {};
  const declared = new Set<string>();

  const context: CaseContext = {
    harness,
    test: (caseName, body, caseOptions = {}) => {
      if (declared.has(caseName)) throw new Error(`two conformance cases are named '${caseName}'`);
      declared.add(caseName);
      const reason = pending[caseName];
      void test(caseName, { skip: reason === undefined ? false : `pending: ${reason}` }, async () => {
        const clock = new ManualClock();
        const store = new OpenStore(harness, await harness.create({ ...caseOptions, now: clock.now }));
        try {
          await body(store, clock);
        } finally {
          await store.close();
        }
      });
    },
  };

  // node:test's describe() and test() return promises the runner awaits itself.
  void describe(`storage conformance: ${name}`, () => {
    after(() => harness.destroy());
    void describe("append", () => appendCases(context));
    void describe("reading", () => readCases(context));
    void describe("retention and soft delete", () => retentionCases(context));
    void describe("tenant usage", () => usageCases(context));
    void describe("status, verify and scavenge", () => maintenanceCases(context));
    void describe("append notices", () => noticeCases(context));
    void describe("concurrency", () => concurrencyCases(context));
    void describe("bad input", () => inputCases(context));
    void describe("auth store", () => authCases(context));
    void describe("lifecycle", () => lifecycleCases(context));
    void describe("against a reference model", () => modelCases(context, options.modelSeeds ?? [1, 2]));
    void test("every pending case names a real case", () => {
      for (const pendingName of Object.keys(pending)) {
        if (!declared.has(pendingName)) throw new Error(`pending names no case: '${pendingName}'`);
      }
    });
  });
}
