/**
 * An event's `data` or `metadata` on its way from an interface to an engine: either JSON text
 * (any JSON value), kept byte for byte (key order, whitespace, escapes, numbers past 2^53), or
 * bytes (a binary event's data, or metadata sent as bytes), kept exactly. One value, made once
 * where the payload enters the service, and checked once:
 * - the REST gateway makes JSON payloads from slices of an append body that its one JSON.parse
 *   accepted as objects (`fromParsedObjectText`, src/rest/raw-json.ts): checked there, never
 *   parsed again; and bytes from `data_base64` / `metadata_base64` (`fromBytes`, through the
 *   operations' `parseAppendRequest`);
 * - the gRPC server makes JSON payloads from a message's bytes, checked to be UTF-8 as it takes
 *   them (`fromUtf8Bytes`), and bytes payloads from the bytes of a binary event (`fromBytes`);
 * - a client or any in-process caller makes one from its own text (`fromText`) or bytes;
 * - the operations make one from a parsed value (`fromValue`), and apply the JSON rule to any
 *   payload not checked yet (`requireJson`), in the order they check a request's fields.
 * An engine takes a checked payload as it is and checks anything else in full
 * (src/storage/validate-input.ts), so a direct caller of an engine still cannot store a text
 * that is not JSON as a JSON payload.
 *
 * Invariants:
 * - `text` and `bytes` never change; a payload is checked once, and then stays checked;
 * - exactly one of the two holds the payload: `bytes` is null for JSON text, and `text` is ""
 *   for bytes (read `isBinary` before `text`);
 * - only the factories and `requireJson` here mark a payload checked (a private field, not
 *   reachable from a request or a caller), and they do so only for the text of a JSON value
 *   holding no lone surrogate, which a parser accepted, or for bytes (any bytes are valid);
 * - `byteLength` is the text's UTF-8 length (or the bytes' length), counted at most once.
 */
import { EssError, invalidArgument } from "../errors.js";
import { requireUtf8, requireWellFormedJson } from "./rules.js";

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

export class Payload {
  /** True once the text is known to be well-formed JSON (always, for bytes). */
  #checked: boolean;
  /** True when the text was decoded from bytes that passed requireUtf8: it holds no raw lone surrogate. */
  #fromUtf8: boolean;
  /** The text's bytes of UTF-8, or -1 until counted. */
  #bytes: number;

  private constructor(
    /** The JSON text, exactly as the client sent it (or as JSON.stringify wrote a value); "" for bytes. */
    readonly text: string,
    checked: boolean,
    fromUtf8: boolean,
    byteLength: number,
    /** The bytes of a bytes payload (stored and returned exactly); null for JSON text. */
    readonly bytes: Buffer | null = null,
  ) {
    this.#checked = checked;
    this.#fromUtf8 = fromUtf8;
    this.#bytes = byteLength;
  }

  /** `{}`, checked: the metadata of an event sent without any. One value, shared (it never changes). */
  static readonly emptyObject = new Payload("{}", true, true, 2);

  /** A caller's own JSON text, not checked yet (the operations check it: `requireJson`). */
  static fromText(text: string): Payload {
    return new Payload(text, false, false, -1);
  }

  /** Bytes stored as they are (a binary event's data, or metadata sent as bytes): checked, any bytes. */
  static fromBytes(bytes: Buffer): Payload {
    return new Payload("", true, true, bytes.length, bytes);
  }

  /**
   * The text of `bytes` (a gRPC message's JSON data or metadata field), refused with
   * INVALID_ARGUMENT naming `field` when they are not UTF-8. Its JSON is checked by the operations.
   */
  static fromUtf8Bytes(bytes: Buffer, field: string): Payload {
    requireUtf8(bytes, field);
    return new Payload(bytes.toString("utf8"), false, true, bytes.length);
  }

  /**
   * The source text of a value a JSON parser has accepted as an object, within a body decoded
   * from bytes that passed requireUtf8 and checked whole with requireWellFormedJson (the REST
   * gateway's append body): checked, so nothing parses it again. A text that does not even look
   * like an object ("{" ... "}") would be a bug of whoever sliced it: it stays unchecked, to be
   * parsed and refused like any other, never stored as it is.
   */
  static fromParsedObjectText(text: string): Payload {
    const isObjectShaped =
      text.charCodeAt(0) === OPEN_BRACE && text.charCodeAt(text.length - 1) === CLOSE_BRACE;
    return new Payload(text, isObjectShaped, true, -1);
  }

  /**
   * A parsed value (any JSON value), serialized once with JSON.stringify. INVALID_ARGUMENT naming
   * `field` for anything JSON cannot hold (undefined, a function, a symbol), or that holds a
   * lone surrogate in a string or key.
   */
  static fromValue(value: unknown, field: string): Payload {
    let text: string | undefined;
    try {
      // JSON.stringify gives undefined for undefined, a function or a symbol (its typings say string).
      text = JSON.stringify(value);
    } catch {
      text = undefined; // a cycle, or a BigInt
    }
    if (typeof text !== "string") throw invalidArgument(`${field} must be a JSON value`, { field });
    // JSON.stringify writes a lone surrogate as an escape: refused here like one sent as an escape.
    requireWellFormedJson(text, field);
    return new Payload(text, true, false, -1);
  }

  /** True once the payload is known to be well-formed JSON, or bytes (see the invariants above). */
  get isChecked(): boolean {
    return this.#checked;
  }

  /** True for bytes (`bytes` holds them), false for JSON text. */
  get isBinary(): boolean {
    return this.bytes !== null;
  }

  /**
   * The JSON rule, applied once: INVALID_JSON when the text is not JSON, INVALID_ARGUMENT when it
   * holds a lone surrogate (raw, or as an escape), each naming `field`. Any JSON value passes (an
   * object, an array, a string, a number, true, false, null). Returns this payload, checked.
   * Nothing to do for a payload checked already, or for bytes.
   */
  requireJson(field: string): Payload {
    if (this.#checked) return this;
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.text);
    } catch {
      throw new EssError("INVALID_JSON", `${field} is not valid JSON`, { field });
    }
    requireWellFormedJson(this.text, field, parsed, this.#fromUtf8);
    this.#checked = true;
    return this;
  }

  /** Bytes of the payload as stored: the text's UTF-8 (what the event size limits count), counted once. */
  get byteLength(): number {
    if (this.#bytes < 0) this.#bytes = Buffer.byteLength(this.text, "utf8");
    return this.#bytes;
  }
}
