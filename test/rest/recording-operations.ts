/**
 * Operations that only record what the gateway asked for, for the gateway's transport tests
 * (routing, parsing, validation, error shape): those must hold whatever the operations do, and
 * a refused request must never reach an operation at all. Behaviour that depends on the
 * operations (auth, storage) is tested against the real service in test/rest/*.e2e.test.ts.
 */
import { EssError } from "../../src/errors.js";
import type { Operations } from "../../src/operations/contract.js";
import { rpcNames } from "../../src/operations/contract.js";

export interface RecordedCall {
  operation: keyof Operations;
  token: string | null;
  request: unknown;
}

/** Every operation records its call and answers `answer(name)`, or fails with NOT_FOUND-like code. */
export function recordingOperations(answer: (name: keyof Operations) => unknown = () => ({ ok: true })): {
  operations: Operations;
  calls: RecordedCall[];
} {
  const calls: RecordedCall[] = [];
  const operations = {} as Record<keyof Operations, unknown>;
  for (const name of Object.keys(rpcNames) as (keyof Operations)[]) {
    if (name === "authenticate") {
      // The gateway's token check before it reads a body: any token passes (unless `answer`
      // fails it), and it is not recorded as a call.
      operations[name] = (): Promise<unknown> => {
        const result = answer(name);
        return result instanceof EssError
          ? Promise.reject(result)
          : Promise.resolve({
              username: "u",
              tenant_id: "t",
              role: "admin",
              expires_at_ms: Date.now() + 3_600_000,
            });
      };
      continue;
    }
    operations[name] = (ctx?: { token: string | null }, request?: unknown): Promise<unknown> => {
      calls.push({ operation: name, token: ctx?.token ?? null, request });
      const result = answer(name);
      return result instanceof EssError ? Promise.reject(result) : Promise.resolve(result);
    };
  }
  return { operations: operations as unknown as Operations, calls };
}
