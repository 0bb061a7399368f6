/**
 * The unary operations, one group per gRPC service: each checks its request (./request-messages.ts),
 * makes the call (./unary-calls.ts) and turns the answer back into the operation's result.
 */
/* eslint-disable @typescript-eslint/unbound-method --
   the generated methods are passed with their client, which UnaryCalls.call uses as `this`. */
import type { Operations } from "../operations/contract.js";
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
import type { ServiceClients } from "./grpc-channels.js";
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

export type StreamsOperations = Pick<
  Operations,
  | "append"
  | "read"
  | "readAll"
  | "getInfo"
  | "list"
  | "setRetention"
  | "delete"
  | "getMetadata"
  | "setMetadata"
>;

export function streamsOperations(calls: UnaryCalls, { streams }: ServiceClients): StreamsOperations {
  return {
    async append(ctx, request) {
      const message = appendMessage(request);
      return calls.callWithCodec("Append", encodeAppendRequest, decodeAppendResult, message, ctx);
    },
    async read(ctx, request) {
      const message = readMessage(request);
      return calls.callWithCodec("Read", encodeReadRequest, decodeReadResult, message, ctx);
    },
    async readAll(ctx, request) {
      const message = readAllMessage(request);
      return calls.callWithCodec("ReadAll", encodeReadAllRequest, decodeReadAllResult, message, ctx);
    },
    async getInfo(ctx, request) {
      const message = streamMessage(request);
      return convert.fromPbStreamInfo(await calls.call(streams, streams.GetInfo, message, ctx));
    },
    async list(ctx, request) {
      const message = listStreamsMessage(request);
      return convert.fromPbStreamList(await calls.call(streams, streams.List, message, ctx));
    },
    async setRetention(ctx, request) {
      const message = setRetentionMessage(request);
      return convert.fromPbStreamInfo(await calls.call(streams, streams.SetRetention, message, ctx));
    },
    async delete(ctx, request) {
      const message = deleteMessage(request);
      return convert.fromPbStreamInfo(await calls.call(streams, streams.Delete, message, ctx));
    },
    async getMetadata(ctx, request) {
      const message = streamMessage(request);
      return convert.fromPbStreamMetadata(await calls.call(streams, streams.GetMetadata, message, ctx));
    },
    async setMetadata(ctx, request) {
      const message = setMetadataMessage(request);
      return convert.fromPbStreamMetadata(await calls.call(streams, streams.SetMetadata, message, ctx));
    },
  };
}

export type AdminOperations = Pick<
  Operations,
  | "listStreams"
  | "verify"
  | "getStorageStatus"
  | "listTenants"
  | "getTenant"
  | "scavenge"
  | "startJob"
  | "getJob"
  | "listJobs"
  | "createUser"
  | "listUsers"
  | "deleteUser"
>;

export function adminOperations(calls: UnaryCalls, { admin }: ServiceClients): AdminOperations {
  return {
    async listStreams(ctx, request) {
      const message = listStreamsMessage(request);
      return convert.fromPbStreamList(await calls.call(admin, admin.ListStreams, message, ctx));
    },
    async verify(ctx) {
      return convert.fromPbVerifyResult(await calls.call(admin, admin.Verify, {}, ctx));
    },
    async getStorageStatus(ctx) {
      return convert.fromPbStorageStatus(await calls.call(admin, admin.GetStorageStatus, {}, ctx));
    },
    async listTenants(ctx, request) {
      const message = pageMessage(request);
      return convert.fromPbTenantList(await calls.call(admin, admin.ListTenants, message, ctx));
    },
    async getTenant(ctx, request) {
      const parsed = parseTenantRequest(request);
      return convert.fromPbTenantDetail(await calls.call(admin, admin.GetTenant, parsed, ctx));
    },
    async scavenge(ctx, request) {
      const parsed = parseScavengeRequest(request);
      return convert.fromPbScavengeResult(await calls.call(admin, admin.Scavenge, parsed, ctx));
    },
    async startJob(ctx, request) {
      const parsed = parseStartJobRequest(request);
      return convert.fromPbJob(await calls.call(admin, admin.StartJob, parsed, ctx));
    },
    async getJob(ctx, request) {
      const parsed = parseJobRequest(request);
      return convert.fromPbJob(await calls.call(admin, admin.GetJob, parsed, ctx));
    },
    async listJobs(ctx, request) {
      const message = pageMessage(request);
      return convert.fromPbJobList(await calls.call(admin, admin.ListJobs, message, ctx));
    },
    async createUser(ctx, request) {
      const parsed = parseCreateUserRequest(request);
      return convert.fromPbUser(await calls.call(admin, admin.CreateUser, parsed, ctx));
    },
    async listUsers(ctx, request) {
      const message = pageMessage(request);
      return convert.fromPbUserList(await calls.call(admin, admin.ListUsers, message, ctx));
    },
    async deleteUser(ctx, request) {
      const parsed = parseUsernameRequest(request);
      return convert.fromPbUser(await calls.call(admin, admin.DeleteUser, parsed, ctx));
    },
  };
}

export type AuthOperations = Pick<Operations, "authenticate" | "check" | "login">;

/** Auth and Health. */
export function authOperations(calls: UnaryCalls, { auth, health }: ServiceClients): AuthOperations {
  return {
    /**
     * Asks the server who the token belongs to (Auth.WhoAmI): `ess gateway --upstream` has no
     * signing key, so this is how it authenticates a request before it reads the body.
     */
    async authenticate(ctx) {
      return convert.fromPbWhoAmIResult(await calls.call(auth, auth.WhoAmI, {}, ctx));
    },
    async check() {
      return convert.fromPbHealthResult(await calls.call(health, health.Check, {}, null));
    },
    async login(ctx, request) {
      const parsed = parseLoginRequest(request);
      return convert.fromPbLoginResult(await calls.call(auth, auth.Login, parsed, ctx));
    },
  };
}
