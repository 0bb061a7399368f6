/**
 * Contract results (src/contract/bodies.ts) <-> ess.v1 messages, by one converter that walks each
 * message's fields as the .proto declares them (./proto.ts, protobufjs's reflection):
 * - a contract key is the field of the same name, and keys come in the fields' order;
 * - a null becomes an unset `optional` field and back; an unset plain field reads as its
 *   default, a nested message as its fields' defaults, a repeated field as [];
 * - bytes hold the UTF-8 of the contract's text (event data/metadata JSON), never parsed;
 * - a oneof is one contract key of its name, holding the member that is set, or null.
 * Where the contract is not the proto's mirror, a named exception below says how and why. The
 * server converts results with `toPb`, the client with `fromPb`; a round trip gives back an equal
 * object in the contract's key order (test/rpc/convert.test.ts). Requests go field for field
 * (`fromPbRequest` on the server, `toPbRequest` in the client). Append, Read and ReadAll take
 * ./codec/ on both sides; the generic path here is what test/rpc/codec.test.ts holds them to.
 */
import protobuf from "protobufjs";
import { isErrorCode } from "../errors.js";
import { binaryContentType, jsonContentType } from "../contract/bodies.js";
import { fromPbEventToAppend } from "./convert-events.js";
import { Payload } from "../contract/payload.js";
import { protoRoot } from "./proto.js";
import type * as contract from "../contract/bodies.js";
import type { EventRecord as PbEventRecord } from "./generated/ess/v1/EventRecord.js";
import type { AppendRequest__Output } from "./generated/ess/v1/AppendRequest.js";
import type { ReadRequest__Output } from "./generated/ess/v1/ReadRequest.js";

type Body = Record<string, unknown>;
type Message = Record<string, unknown>;

/** How one contract key departs from the generic rules (a direction left out follows them). */
interface Exception {
  /** Server side: the message fields that carry the key's value. */
  toPb?: (value: unknown, body: Body) => Message;
  /**
   * Client side: the key's value, from the one the generic rules give (`value`), the whole
   * message and the keys converted before it; undefined leaves the key out.
   */
  fromPb?: (value: unknown, message: Message, body: Body) => unknown;
}

/** A word the contract types narrowly; an unknown one (a newer server's) reads as `fallback`. */
function word(allowed: readonly string[], fallback = allowed[0]): Exception {
  return { fromPb: (value) => (allowed.includes(value as string) ? value : fallback) };
}

/** An `optional` field that the contract leaves out, rather than null, when it is unset. */
const absentIfUnset: Exception = { fromPb: (value) => value ?? undefined };

/** An engine's detail list, there for its engine (even empty) or when the server sent some. */
function listOfEngine(engine: string): Exception {
  return {
    fromPb: (list, _m, body) => (body.engine === engine || (list as []).length > 0 ? list : undefined),
  };
}

const roles = word(["reader", "writer", "admin"]);
const engines = word(["log", "postgres"]);
const progressUnits = ["bytes", "segments", "streams"];

/** The exceptions, by message and contract key. */
const exceptions: Record<string, Exception> = {
  // Metadata appended as bytes travels in metadata_bytes, with `metadata` empty (docs/rpc.md).
  "EventRecord.metadata": {
    toPb: (metadata) =>
      typeof metadata === "string"
        ? { metadata: Buffer.from(metadata, "utf8") }
        : { metadata: Buffer.alloc(0), metadata_bytes: metadata },
    fromPb: (text, message) =>
      message.metadata_bytes != null ? Buffer.from(message.metadata_bytes as Buffer) : text,
  },
  "EventRecord.metadata_bytes": { fromPb: () => undefined }, // folded into `metadata`
  // A binary event's data stays bytes (a copy, not a view of the received message).
  "EventRecord.data": {
    fromPb: (text, message) =>
      message.content_type === binaryContentType ? Buffer.from(message.data as Buffer) : text,
  },
  // An older server sends no content_type: its events are JSON.
  "EventRecord.content_type": word([jsonContentType, binaryContentType]),
  "ReadResult.direction": word(["forward", "backward"]),
  // The stream's metadata document is an object, sent as its JSON text; the client refuses
  // text that is not UTF-8 JSON as every interface does (INVALID_ARGUMENT, INVALID_JSON).
  "StreamMetadata.metadata": {
    toPb: (document) => ({ metadata: Buffer.from(JSON.stringify(document), "utf8") }),
    fromPb: (_text, message) => documentFromBytes(message.metadata as Buffer),
  },
  "StorageStatus.engine": engines,
  "StorageStatus.data_dir": absentIfUnset,
  "StorageStatus.segments": listOfEngine("log"),
  "StorageStatus.writer": absentIfUnset,
  "StorageStatus.index": absentIfUnset,
  "StorageStatus.tables": listOfEngine("postgres"),
  "StorageStatus.pool": absentIfUnset,
  // A real run's result has no `streams`; a dry run's lists them.
  "ScavengeResult.streams": { fromPb: (streams, _m, body) => (body.dry_run === true ? streams : undefined) },
  "Job.kind": word(["verify", "scavenge"]),
  "Job.state": word(["queued", "running", "done", "failed"], "failed"),
  // An unknown unit reads as the kind's own.
  "Job.progress": {
    fromPb: (progress, _m, body) => {
      const p = progress as contract.JobProgress;
      const unit = progressUnits.includes(p.unit) ? p.unit : body.kind === "verify" ? "bytes" : "streams";
      return { ...p, unit };
    },
  },
  // The `result` oneof: the member is the job's kind's result.
  "Job.result": {
    toPb: (result, body) =>
      result === null
        ? {}
        : body.kind === "verify"
          ? { verify_result: toMessage(typeNamed("VerifyResult"), result as Body) }
          : { scavenge_result: toMessage(typeNamed("ScavengeResult"), result as Body) },
  },
  "Job.error": {
    fromPb: (error) => {
      if (error === null) return null;
      const { code, message } = error as { code: string; message: string };
      return { code: isErrorCode(code) ? code : "INTERNAL", message };
    },
  },
  "HealthResult.status": word(["ok", "degraded"], "degraded"),
  "StorageHealth.engine": engines,
  "LoginResult.token_type": word(["Bearer"]),
  "LoginResult.role": roles,
  "WhoAmIResult.role": roles,
  "User.role": roles,
};

/**
 * A stream's metadata document from its bytes: text that is not UTF-8 is refused with
 * INVALID_ARGUMENT, text that is not JSON with INVALID_JSON, each naming `metadata`, as on every
 * interface (the operations check that it is an object).
 */
function documentFromBytes(bytes: Buffer): unknown {
  return JSON.parse(Payload.fromUtf8Bytes(bytes, "metadata").requireJson("metadata").text) as unknown;
}

/** Contract key orders that differ from the fields' order in the .proto. */
const contractOrders: Record<string, readonly string[]> = {
  // `retention` (field 10) was in StreamInfo before `tombstoned` (11), which the contract
  // has before it.
  StreamInfo: [
    "stream_id",
    "tenant_id",
    "event_count",
    "first_revision",
    "last_revision",
    "bytes",
    "created_at",
    "updated_at",
    "deleted",
    "tombstoned",
    "retention",
  ],
};

// ---- the generic converter ----

/** One contract key: how it goes into a message and comes out of one. */
interface Step {
  key: string;
  toPb: (body: Body, message: Message) => void;
  fromPb: (message: Message, body: Body) => void;
}

const stepsByType = new Map<protobuf.Type, Step[]>();

function typeNamed(name: string): protobuf.Type {
  return protoRoot.lookupType(`ess.v1.${name}`);
}

/** Whether a field is proto3 `optional`: unset and null are the same. */
function hasPresence(field: protobuf.Field): boolean {
  return (field.options as { proto3_optional?: boolean } | undefined)?.proto3_optional === true;
}

function scalarDefault(field: protobuf.Field): unknown {
  if (field.type === "string" || field.type === "bytes") return "";
  return field.type === "bool" ? false : 0;
}

function valueToPb(field: protobuf.Field, value: unknown): unknown {
  if (field.resolvedType instanceof protobuf.Type) return toMessage(field.resolvedType, value as Body);
  return field.type === "bytes" && typeof value === "string" ? Buffer.from(value, "utf8") : value;
}

function valueFromPb(field: protobuf.Field, value: unknown): unknown {
  if (field.resolvedType instanceof protobuf.Type) return fromMessage(field.resolvedType, value as Message);
  return field.type === "bytes" ? (value as Buffer).toString("utf8") : value;
}

/** The generic step of a field: its contract key is its name. */
function fieldStep(field: protobuf.Field): Step {
  const { name } = field;
  const present = hasPresence(field);
  return {
    key: name,
    toPb(body, message) {
      const value = body[name];
      if (field.repeated) message[name] = ((value ?? []) as unknown[]).map((v) => valueToPb(field, v));
      else if (value !== null && value !== undefined) message[name] = valueToPb(field, value);
    },
    fromPb(message, body) {
      const value = message[name];
      if (field.repeated) body[name] = ((value ?? []) as unknown[]).map((v) => valueFromPb(field, v));
      else if (value !== null && value !== undefined) body[name] = valueFromPb(field, value);
      else if (present) body[name] = null;
      else if (field.resolvedType instanceof protobuf.Type) body[name] = fromMessage(field.resolvedType, {});
      else body[name] = scalarDefault(field);
    },
  };
}

/** A oneof's step: one key of the oneof's name; the server side is the message's exception. */
function oneofStep(oneof: protobuf.OneOf): Step {
  return {
    key: oneof.name,
    toPb() {
      throw new Error(`oneof ${oneof.parent?.name}.${oneof.name} needs an exception in convert.ts`);
    },
    fromPb(message, body) {
      const member = oneof.fieldsArray.find((f) => message[f.name] !== null && message[f.name] !== undefined);
      body[oneof.name] = member === undefined ? null : valueFromPb(member, message[member.name]);
    },
  };
}

function withException(step: Step, exception: Exception | undefined): Step {
  if (exception === undefined) return step;
  const { toPb, fromPb } = exception;
  return {
    key: step.key,
    toPb:
      toPb === undefined ? step.toPb : (body, message) => Object.assign(message, toPb(body[step.key], body)),
    fromPb:
      fromPb === undefined
        ? step.fromPb
        : (message, body) => {
            step.fromPb(message, body);
            const value = fromPb(body[step.key], message, body);
            if (value === undefined) delete body[step.key];
            else body[step.key] = value;
          },
  };
}

/** A message type's steps, in the contract's key order. */
function stepsOf(type: protobuf.Type): Step[] {
  let steps = stepsByType.get(type);
  if (steps !== undefined) return steps;
  steps = [];
  for (const field of type.fieldsArray) {
    const oneof = hasPresence(field) ? null : field.partOf;
    if (oneof === null) steps.push(fieldStep(field));
    else if (oneof.fieldsArray[0] === field) steps.push(oneofStep(oneof));
  }
  steps = steps.map((step) => withException(step, exceptions[`${type.name}.${step.key}`]));
  const order = contractOrders[type.name];
  if (order !== undefined) {
    const byKey = new Map(steps.map((step) => [step.key, step]));
    if (order.length !== byKey.size || !order.every((key) => byKey.has(key))) {
      throw new Error(`the contract order of ${type.name} does not list its fields`);
    }
    steps = order.map((key) => byKey.get(key) as Step);
  }
  stepsByType.set(type, steps);
  return steps;
}

function toMessage(type: protobuf.Type, body: Body): Message {
  const message: Message = {};
  for (const step of stepsOf(type)) step.toPb(body, message);
  return message;
}

function fromMessage(type: protobuf.Type, message: Message): Body {
  const body: Body = {};
  for (const step of stepsOf(type)) step.fromPb(message, body);
  return body;
}

/** The server side of message type `name`: the contract body `Result` as the message. */
export function toPb<Result, Pb = Message>(name: string): (result: Result) => Pb {
  const type = typeNamed(name);
  return (result) => toMessage(type, result as Body) as Pb;
}

/** The client side of message type `name`: the message (as proto-loader decodes it) as `Result`. */
export function fromPb<Result>(name: string): (message: object) => Result {
  const type = typeNamed(name);
  return (message) => fromMessage(type, message as Message) as Result;
}

/** The response message of `service`'s `method` (its name in the .proto files). */
function responseTypeOf(service: string, method: string): string {
  const type = protoRoot.lookupService(service).methods[method]?.resolvedResponseType;
  if (!type) throw new Error(`${service}/${method} is not in the .proto files`);
  return type.name;
}

/** The server side of a method's answer: the operation's result as its response message. */
export function toPbResponse(service: string, method: string): (result: unknown) => Message {
  return toPb(responseTypeOf(service, method));
}

/** The client side of a method's answer: its response message as the operation's result. */
export function fromPbResponse<Result>(service: string, method: string): (message: object) => Result {
  return fromPb<Result>(responseTypeOf(service, method));
}

export const toPbEventRecord = toPb<contract.EventRecord, PbEventRecord>("EventRecord");

// ---- server side: request messages -> contract requests ----

/** How a request field departs from the copy of its value. */
const requestExceptions: Record<string, (value: unknown) => unknown> = {
  // The metadata document's JSON text, parsed; no bytes: the operations refuse the missing
  // document ("metadata must be a JSON object").
  "SetMetadataRequest.metadata": (bytes) =>
    (bytes as Buffer).length === 0 ? undefined : documentFromBytes(bytes as Buffer),
};

function requestTypeOf(service: string, method: string): protobuf.Type {
  const type = protoRoot.lookupService(service).methods[method]?.resolvedRequestType;
  if (!type) throw new Error(`${service}/${method} is not in the .proto files`);
  return type;
}

/**
 * The request of `service`'s `method` as its operation takes it: the message's fields in the
 * .proto's order, an unset `optional` one undefined (the operation applies its default).
 */
export function fromPbRequest<Request>(service: string, method: string): (message: object) => Request {
  const type = requestTypeOf(service, method);
  const fields = type.fieldsArray.map((field) => ({
    name: field.name,
    exception: requestExceptions[`${type.name}.${field.name}`],
  }));
  return (message) => {
    const request: Body = {};
    for (const { name, exception } of fields) {
      const value = (message as Message)[name];
      request[name] = exception === undefined ? value : exception(value);
    }
    return request as Request;
  };
}

/**
 * The client side: a checked request (../operations/validate.ts) as the request message of
 * `service`'s `method`, its fields taken by name: null is unset, a number in a string field its
 * decimal text (an expected revision), an object in a bytes field its JSON text (a metadata document).
 */
export function toPbRequest(service: string, method: string): (request: object) => Message {
  const fields = requestTypeOf(service, method).fieldsArray;
  return (request) => {
    const message: Message = {};
    for (const { name, type } of fields) {
      const value = (request as Body)[name];
      if (value === null || value === undefined) continue;
      if (type === "string" && typeof value === "number") message[name] = String(value);
      else if (type === "bytes" && !Buffer.isBuffer(value))
        message[name] = Buffer.from(JSON.stringify(value), "utf8");
      else message[name] = value;
    }
    return message;
  };
}

// The Append and Read requests, on the hot path of the unary calls and the sessions, by hand.

/** The ess.v1 ReadRequest as the `read` operation takes it (the unary Read and ReadSession). */
export function fromPbReadRequest(r: ReadRequest__Output): contract.ReadRequest {
  return { stream_id: r.stream_id, tenant: r.tenant, from: r.from, limit: r.limit, direction: r.direction };
}

/** The ess.v1 AppendRequest as the `append` operation takes it (the unary Append and AppendSession). */
export function fromPbAppendRequest(r: AppendRequest__Output): contract.AppendRequest {
  return {
    stream_id: r.stream_id,
    tenant: r.tenant,
    events: r.events.map(fromPbEventToAppend),
    expected_revision: r.expected_revision,
  };
}
