/**
 * The codec of every method without a hand-written one (../codec/, ../session-codec.ts hold
 * those): proto-loader's (protobufjs) serializer and deserializer, loaded from the .proto files
 * (../proto.ts), with the request checked as the hand-written decoders check theirs:
 *
 * - every string field, nested messages' included, must be UTF-8, or the request is refused
 *   with INVALID_ARGUMENT naming the field (../../contract/rules.ts, requireUtf8), before protobufjs would decode it
 *   with replacement characters;
 * - bytes that are not valid protobuf are refused with INVALID_ARGUMENT
 *   (checkedGenericDecoder, ../malformed-request.ts), never thrown as protobufjs's own errors.
 */
import type { MethodDefinition } from "@grpc/proto-loader";
import { EssError } from "../../errors.js";
import { requireUtf8 } from "../../contract/rules.js";
import { readerFor, type ProtoReader } from "../codec/wire.js";
import { checkedGenericDecoder } from "../malformed-request.js";
import { packageDefinition } from "../proto.js";

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
 * A message that is malformed otherwise is left to the decoder, which refuses it.
 */
export function checkTextFields(descriptor: MessageDescriptor, message: Buffer): void {
  try {
    checkFields(readerFor(message), textFieldsOf(descriptor), message.length, "");
  } catch (error) {
    if (error instanceof EssError) throw error;
  }
}

/** A method's definition as proto-loader loaded it: `service` "ess.v1.Admin", `method` "ListStreams". */
export function methodDefinition(service: string, method: string): MethodDefinition<object, object> {
  const definition = (
    packageDefinition[service] as Record<string, MethodDefinition<object, object>> | undefined
  )?.[method];
  if (definition === undefined) throw new Error(`${service}/${method} is not in the .proto files`);
  return definition;
}

export interface GenericCodec<Request, Result> {
  readonly path: string;
  readonly decode: (message: Buffer) => Request;
  readonly encode: (result: Result) => Buffer;
}

/**
 * The generic codec of a method, answering with `toMessage(result)` (a ../convert.ts function:
 * the contract's body as the proto message).
 */
export function genericCodec<Request, Result, Message>(
  service: string,
  method: string,
  toMessage: (result: Result) => Message,
): GenericCodec<Request, Result> {
  const definition = methodDefinition(service, method);
  const descriptor = (definition.requestType as { type?: MessageDescriptor }).type;
  const decodeChecked = checkedGenericDecoder(definition.requestDeserialize);
  const serialize = definition.responseSerialize as (message: Message) => Buffer;
  return {
    path: definition.path,
    decode(message) {
      if (descriptor !== undefined) checkTextFields(descriptor, message);
      return decodeChecked(message) as Request;
    },
    encode: (result) => serialize(toMessage(result)),
  };
}
