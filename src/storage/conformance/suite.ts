/**
 * The engine-neutral storage conformance suite (docs/contract.md "Storage guarantees"): every engine runs it
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
import { readAllFilterCases } from "./cases-read-all-filters.js";
import { retentionCases } from "./cases-retention.js";
import { usageCases } from "./cases-usage.js";
import { maintenanceCases } from "./cases-maintenance.js";
import { noticeCases } from "./cases-notices.js";
import { concurrencyCases } from "./cases-concurrency.js";
import { inputCases } from "./cases-input.js";
import { authCases } from "./cases-auth.js";
import { lifecycleCases } from "./cases-lifecycle.js";
import { modelCases } from "./cases-model.js";
import { tombstoneMetadataCases } from "./cases-tombstone-metadata.js";
import { binaryCases } from "./cases-binary.js";

export type { EngineHarness, SuiteOptions } from "./harness.js";
export { OpenedEngines } from "./harness.js";

export interface CaseContext {
  readonly harness: EngineHarness;
  /** Declares a case that runs on a fresh store opened with `clock`; the store is closed after. */
  readonly test: (
    name: string,
    body: (store: OpenStore, clock: ManualClock) => Promise<void>,
    options?: CaseOptions,
  ) => void;
}

export interface CaseOptions {
  /** See HarnessOptions.fullLimits. */
  fullLimits?: boolean;
  /**
   * Cases naming the same group share one store, opened for the first of them and closed after
   * the suite. Only for cases that leave the store as they found it (refused bad input), to spare
   * engines whose stores are costly to create.
   */
  sharedStore?: string;
}

export function runConformanceSuite(name: string, harness: EngineHarness, options: SuiteOptions = {}): void {
  const pending = options.pending ?? {};
  const declared = new Set<string>();
  const shared = new Map<string, Promise<{ store: OpenStore; clock: ManualClock }>>();

  async function openStore(caseOptions: CaseOptions): Promise<{ store: OpenStore; clock: ManualClock }> {
    const clock = new ManualClock();
    const engine = await harness.create({ fullLimits: caseOptions.fullLimits, now: clock.now });
    return { store: new OpenStore(harness, engine), clock };
  }

  const context: CaseContext = {
    harness,
    test: (caseName, body, caseOptions = {}) => {
      if (declared.has(caseName)) throw new Error(`two conformance cases are named '${caseName}'`);
      declared.add(caseName);
      const reason = pending[caseName];
      void test(caseName, { skip: reason === undefined ? false : `pending: ${reason}` }, async () => {
        const group = caseOptions.sharedStore;
        if (group !== undefined) {
          let opened = shared.get(group);
          if (!opened) shared.set(group, (opened = openStore(caseOptions)));
          const { store, clock } = await opened;
          await body(store, clock);
          return;
        }
        const { store, clock } = await openStore(caseOptions);
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
    after(async () => {
      for (const opened of shared.values()) await (await opened).store.close();
      await harness.destroy();
    });
    void describe("append", () => appendCases(context));
    void describe("reading", () => readCases(context));
    void describe("$all backward and filtered", () => readAllFilterCases(context));
    void describe("retention and soft delete", () => retentionCases(context));
    void describe("tenant usage", () => usageCases(context));
    void describe("status, verify and scavenge", () => maintenanceCases(context));
    void describe("append notices", () => noticeCases(context));
    void describe("concurrency", () => concurrencyCases(context));
    void describe("bad input", () => inputCases(context));
    void describe("binary events and raw metadata", () => binaryCases(context));
    void describe("auth store", () => authCases(context));
    void describe("lifecycle", () => lifecycleCases(context));
    void describe("deletes, tombstones and stream metadata", () => tombstoneMetadataCases(context));
    void describe("against a reference model", () => modelCases(context, options.modelSeeds ?? [1, 2]));
    void test("every pending case names a real case", () => {
      for (const pendingName of Object.keys(pending)) {
        if (!declared.has(pendingName)) throw new Error(`pending names no case: '${pendingName}'`);
      }
    });
  });
}
