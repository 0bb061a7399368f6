/** What the KurrentDB listener's handlers share: the operations and the caller of a call. */
import type * as grpc from "@grpc/grpc-js";
import type { CallContext } from "../operations/contract.js";
import type { ServiceOperations } from "../operations/operations.js";
import type { SubscriptionService } from "../operations/subscribe.js";
import type { Logger } from "../logger.js";
import type { EssError } from "../errors.js";

export interface KurrentDeps {
  operations: ServiceOperations;
  subscriptions: SubscriptionService;
  logger: Logger;
  /** The call context of a call's credentials (./credentials.ts): UNAUTHENTICATED when refused. */
  contextOf(call: { metadata: grpc.Metadata; getPeer(): string }): Promise<CallContext>;
  /** Ends of the subscriptions open now: the listener's close ends them (UNAVAILABLE). */
  readonly openSubscriptions: Set<(error: EssError) => void>;
}
