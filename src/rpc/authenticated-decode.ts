/**
 * Authentication before decoding, for the calls grpc-js carries (the fast paths do the same in
 * ./server.ts): grpc-js decodes a request message before it calls the method's handler, so each
 * method of a service is given a deserializer that keeps the message's bytes, and its handler
 * first authenticates the call's token (protected methods), then decodes the message, then runs
 * the real handler. A call without a valid token is answered UNAUTHENTICATED before anything it
 * sent is read; a message whose text fields are not valid UTF-8 is answered INVALID_ARGUMENT
 * (../contract/rules.ts) instead of being decoded with replacement characters.
 *
 * Client-streaming methods (the sessions) are left as they are: a session authenticates once at
 * its start before it reads its first request (./pipelined-session.ts).
 */
import type * as grpc from "@grpc/grpc-js";
import { status as grpcStatus } from "@grpc/grpc-js";
import { EssError, toEssError } from "../errors.js";
import type { CallContext } from "../operations/contract.js";
import { requireUtf8 } from "../contract/rules.js";
import { readerFor, type ProtoReader } from "./codec.js";
import { toServiceError } from "./error-mapping.js";
import { packageDefinition } from "./proto.js";

/** The part of a proto-loader message descriptor read here. */
interface MessageDescriptor {
  field: { name: string; number: number; type: string; typeName: string }[];
}

/** A message type's text fields and nested messages by field number, with their names. */
interface TextFields {
  strings: Map<number, string>;
  messages: Map<number, { name: string; fields: TextFields }>;
}

const textFieldsByType = new Map<MessageDescriptor, TextFields>();

function textFieldsOf(descriptor: MessageDescriptor): TextFields {
  let fields = textFieldsByType.get(descriptor);
  if (fields !== undefined) return fields;
  fields = { strings: new Map(), messages: new Map() };
  textFieldsByType.set(descriptor, fields);
  for (const field of descriptor.field) {
    if (field.type === "TYPE_STRING") fields.strings.set(field.number, field.name);
    else if (field.type === "TYPE_MESSAGE") {
      const nested = packageDefinition[field.typeName.replace(/^\./, "")] as
        { type?: MessageDescriptor } | undefined;
      if (nested?.type !== undefined) {
        fields.messages.set(field.number, { name: field.name, fields: textFieldsOf(nested.type) });
      }
    }
  }
  return fields;
}

function checkFields(r: ProtoReader, fields: TextFields, end: number, prefix: string): void {
  while (r.pos < end) {
    const key = r.varint32();
    const number = key >>> 3;
    const string = fields.strings.get(number);
    const message = fields.messages.get(number);
    if ((key & 7) !== 2 || (string === undefined && message === undefined)) {
      r.skip(key);
      continue;
    }
    const fieldEnd = r.delimitedEnd();
    if (string !== undefined) {
      requireUtf8(r.buf.subarray(r.pos, fieldEnd), prefix + string);
    } else if (message !== undefined) {
      const outer = r.end;
      r.end = fieldEnd;
      checkFields(r, message.fields, fieldEnd, `${prefix}${message.name}.`);
      r.end = outer;
    }
    r.pos = fieldEnd;
  }
}

/**
 * Throws INVALID_ARGUMENT when a string field of the message (at any depth) is not valid UTF-8.
 * A message that is malformed otherwise is left to the decoder, which refuses it as before.
 */
export function checkTextFields(descriptor: MessageDescriptor, message: Buffer): void {
  try {
    checkFields(readerFor(message), textFieldsOf(descriptor), message.length, "");
  } catch (error) {
    if (error instanceof EssError) throw error;
  }
}

export interface AuthenticatedDecodeOptions {
  /** The call's context from its metadata. */
  contextOf(metadata: grpc.Metadata): CallContext;
  /** Verifies the context's token; the caller goes on in the context the handler sees. */
  authenticate(ctx: CallContext): Promise<CallContext["caller"]>;
  /** Methods that need no token (Auth.Login, the health checks). */
  publicMethods: ReadonlySet<string>;
  /** Where the handlers read the context authenticated for their call. */
  contexts: WeakMap<object, CallContext>;
  /** Decoders that check text fields themselves (../rpc/codec.ts), so the walk is skipped. */
  checkingDecoders: ReadonlySet<unknown>;
}

type AnyCall = { request: unknown; metadata: grpc.Metadata; emit(event: string, value: unknown): boolean };
type Handler = (call: AnyCall, callback?: (error: unknown, value?: unknown) => void) => void;

/**
 * The service definition and handlers with decoding moved after authentication (unary and
 * server-streaming methods).
 */
export function authenticatedDecode<H extends object>(
  service: grpc.ServiceDefinition,
  handlers: H,
  options: AuthenticatedDecodeOptions,
): { service: grpc.ServiceDefinition; handlers: H } {
  const outService: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  const outHandlers: Record<string, unknown> = { ...(handlers as Record<string, unknown>) };
  for (const [name, method] of Object.entries(service)) {
    const handler = (handlers as Record<string, unknown>)[name] as Handler | undefined;
    if (method.requestStream || handler === undefined) {
      outService[name] = method;
      continue;
    }
    const decode = method.requestDeserialize;
    const descriptor = (method as { requestType?: { type?: MessageDescriptor } }).requestType?.type;
    const walk = !options.checkingDecoders.has(decode) && descriptor !== undefined;
    const isPublic = options.publicMethods.has(name);
    outService[name] = { ...method, requestDeserialize: (bytes: Buffer) => bytes };
    outHandlers[name] = (call: AnyCall, callback?: (error: unknown, value?: unknown) => void) => {
      const fail = (status: Partial<grpc.StatusObject>) => {
        if (callback !== undefined) callback(status);
        else call.emit("error", status);
      };
      const ctx = options.contextOf(call.metadata);
      const ready: Promise<CallContext> = isPublic
        ? Promise.resolve(ctx)
        : options.authenticate(ctx).then((caller) => ({ ...ctx, caller }));
      ready.then(
        (authenticated) => {
          const bytes = call.request as Buffer;
          try {
            if (walk) checkTextFields(descriptor, bytes);
            call.request = decode(bytes);
          } catch (error) {
            // As grpc-js answers a message its deserializer refuses, unless the refusal is ours.
            fail(
              error instanceof EssError
                ? toServiceError(error)
                : { code: grpcStatus.INTERNAL, details: "Error deserializing request" },
            );
            return;
          }
          options.contexts.set(call, authenticated);
          handler(call, callback);
        },
        (error: unknown) => fail(toServiceError(toEssError(error))),
      );
    };
  }
  return { service: outService, handlers: outHandlers as H };
}
