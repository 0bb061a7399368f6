/**
 * The unary operations: each checks its request with the in-process operations' own parse*
 * function (so a bad request fails with the same EssError without a round trip), makes it a
 * message, makes the call (./unary-calls.ts) and turns the answer back into the operation's result.
 * Append, Read and ReadAll go through the hand-written codecs of src/rpc/codec/; every other
 * operation of `rpcNames` through proto-loader's codec and src/rpc/convert.ts.
 */
import type { SetRetentionRequest } from "../contract/bodies.js";
import { type CallContext, type OperationName, type Operations } from "../operations/contract.js";
import * as validate from "../operations/validate.js";
import { decodeAppendResult, encodeAppendRequest } from "../rpc/codec/append.js";
import { encodeReadAllRequest, encodeReadRequest } from "../rpc/codec/read-requests.js";
import { decodeReadAllResult, decodeReadResult } from "../rpc/codec/read-results.js";
import * as convert from "../rpc/convert.js";
import { rpcMethodOf } from "../rpc/proto.js";
import { methodDefinition } from "../rpc/methods/generic-codec.js";
import { appendPath, readAllPath, readPath } from "../rpc/methods/streams.js";
import { appendMessage, readAllMessage, readMessage } from "./request-messages.js";
import type { UnaryCalls } from "./unary-calls.js";

/** A request checked (../operations/validate.ts), as its operation checks it. */
type Check = (request: never) => object;

const noMessage = (): object => ({});

export function unaryOperations(calls: UnaryCalls): Omit<Operations, "refused"> {
  /** `operation` on the generic codec: its request checked, then its message; its answer converted. */
  function generic<K extends OperationName>(operation: K, check: Check): Operations[K] {
    const [service, method] = rpcMethodOf(operation);
    const { path, requestSerialize, responseDeserialize } = methodDefinition(service, method);
    const toMessage = convert.toPbRequest(service, method);
    const fromPb = convert.fromPbResponse(service, method);
    const run = async (ctx: CallContext | null, request: never): Promise<unknown> =>
      fromPb(await calls.call(path, requestSerialize, responseDeserialize, toMessage(check(request)), ctx));
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
    getInfo: generic("getInfo", validate.parseStreamRequest),
    list: generic("list", validate.parseListStreamsRequest),
    setRetention: generic("setRetention", (request: SetRetentionRequest) => {
      const parsed = validate.parseSetRetentionRequest(request);
      return { ...parsed, ...parsed.retention };
    }),
    delete: generic("delete", validate.parseDeleteRequest),
    getMetadata: generic("getMetadata", validate.parseStreamRequest),
    setMetadata: generic("setMetadata", validate.parseSetMetadataRequest),
    listStreams: generic("listStreams", validate.parseListStreamsRequest),
    verify: generic("verify", noMessage),
    getStorageStatus: generic("getStorageStatus", noMessage),
    listTenants: generic("listTenants", validate.parsePageRequest),
    getTenant: generic("getTenant", validate.parseTenantRequest),
    scavenge: generic("scavenge", validate.parseScavengeRequest),
    startJob: generic("startJob", validate.parseStartJobRequest),
    getJob: generic("getJob", validate.parseJobRequest),
    listJobs: generic("listJobs", validate.parsePageRequest),
    createUser: generic("createUser", validate.parseCreateUserRequest),
    listUsers: generic("listUsers", validate.parsePageRequest),
    deleteUser: generic("deleteUser", validate.parseUsernameRequest),
    // Asks the server who the token belongs to (Auth.WhoAmI): `ess gateway --upstream` has no
    // signing key, so this is how it authenticates a request before it reads the body.
    authenticate: generic("authenticate", noMessage),
    // The health check carries no token.
    check: () => check({ token: null }),
    login: generic("login", validate.parseLoginRequest),
  };
}
