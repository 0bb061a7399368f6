/**
 * The unary operations: each checks its request and makes it a message (./request-messages.ts),
 * makes the call (./unary-calls.ts) and turns the answer back into the operation's result.
 * Append, Read and ReadAll go through the hand-written codecs of src/rpc/codec/; every other
 * operation of `rpcNames` through proto-loader's codec and src/rpc/convert.ts.
 */
import { rpcNames, type CallContext, type OperationName, type Operations } from "../operations/contract.js";
import {
  parseCreateUserRequest,
  parseJobRequest,
  parseLoginRequest,
  parseScavengeRequest,
  parseStartJobRequest,
  parseTenantRequest,
  parseUsernameRequest,
} from "../operations/validate.js";
import { decodeAppendResult, encodeAppendRequest } from "../rpc/codec/append.js";
import { encodeReadAllRequest, encodeReadRequest } from "../rpc/codec/read-requests.js";
import { decodeReadAllResult, decodeReadResult } from "../rpc/codec/read-results.js";
import * as convert from "../rpc/convert.js";
import { methodDefinition } from "../rpc/methods/generic-codec.js";
import { appendPath, readAllPath, readPath } from "../rpc/methods/streams.js";
import {
  appendMessage,
  deleteMessage,
  listStreamsMessage,
  pageMessage,
  readAllMessage,
  readMessage,
  setMetadataMessage,
  setRetentionMessage,
  streamMessage,
} from "./request-messages.js";
import type { UnaryCalls } from "./unary-calls.js";

/** A request checked and made its method's message. */
type ToMessage = (request: never) => object;

const noMessage = (): object => ({});

export function unaryOperations(calls: UnaryCalls): Omit<Operations, "refused"> {
  /** `operation` on the generic codec: its request as `toMessage` makes it, its answer converted. */
  function generic<K extends OperationName>(operation: K, toMessage: ToMessage): Operations[K] {
    const [service, method] = rpcNames[operation].split(".") as [string, string];
    const definition = methodDefinition(`ess.v1.${service}`, method);
    const fromPb = convert.fromPbResponse(`ess.v1.${service}`, method);
    const run = async (ctx: CallContext | null, request: never): Promise<unknown> => {
      const message = toMessage(request);
      return fromPb(
        await calls.call(
          definition.path,
          definition.requestSerialize,
          definition.responseDeserialize,
          message,
          ctx,
        ),
      );
    };
    return run as Operations[K];
  }
  const check = generic("check", noMessage);
  return {
    append: async (ctx, request) =>
      calls.call(appendPath, encodeAppendRequest, decodeAppendResult, appendMessage(request), ctx),
    read: async (ctx, request) =>
      calls.call(readPath, encodeReadRequest, decodeReadResult, readMessage(request), ctx),
    readAll: async (ctx, request) =>
      calls.call(readAllPath, encodeReadAllRequest, decodeReadAllResult, readAllMessage(request), ctx),
    getInfo: generic("getInfo", streamMessage),
    list: generic("list", listStreamsMessage),
    setRetention: generic("setRetention", setRetentionMessage),
    delete: generic("delete", deleteMessage),
    getMetadata: generic("getMetadata", streamMessage),
    setMetadata: generic("setMetadata", setMetadataMessage),
    listStreams: generic("listStreams", listStreamsMessage),
    verify: generic("verify", noMessage),
    getStorageStatus: generic("getStorageStatus", noMessage),
    listTenants: generic("listTenants", pageMessage),
    getTenant: generic("getTenant", parseTenantRequest),
    scavenge: generic("scavenge", parseScavengeRequest),
    startJob: generic("startJob", parseStartJobRequest),
    getJob: generic("getJob", parseJobRequest),
    listJobs: generic("listJobs", pageMessage),
    createUser: generic("createUser", parseCreateUserRequest),
    listUsers: generic("listUsers", pageMessage),
    deleteUser: generic("deleteUser", parseUsernameRequest),
    // Asks the server who the token belongs to (Auth.WhoAmI): `ess gateway --upstream` has no
    // signing key, so this is how it authenticates a request before it reads the body.
    authenticate: generic("authenticate", noMessage),
    // The health check carries no token.
    check: () => check({ token: null }),
    login: generic("login", parseLoginRequest),
  };
}
