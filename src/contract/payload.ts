/**
 * An event's `data` or `metadata` on its way from an interface to an engine: the JSON text of
 * an object, kept byte for byte (key order, whitespace, escapes, numbers past 2^53). One value,
 * made once where the payload enters the service, and checked once:
 * - the REST gateway makes it from a slice of an append body that its one JSON.parse accepted as
 *   an object (`fromParsedObjectText`, src/rest/raw-json.ts): checked there, never parsed again;
 * - the gRPC server makes it from a message's bytes, checked to be UTF-8 as it takes them
 *   (`fromUtf8Bytes`);
 * - a client or any in-process caller makes it from its own text (`fromText`);
 * - the operations make one from a parsed value (`fromValue`), and apply the JSON-object rule to
 *   any payload not checked yet (`requireJsonObject`), in the order they check a request's fields.
 * An engine takes a checked payload as it is and checks anything else in full
 * (src/storage/validate-input.ts), so a direct caller of an engine still cannot store a text
 * that is not an object.
 *
 * Invariants:
 * - `text` never changes; a payload is checked once, and then stays checked;
 * - only the factories and `requireJsonObject` here mark a payload checked (a private field, not
 *   reachable from a request or a caller), and they do so only for the text of a JSON object
 *   holding no lone surrogate, which a parser accepted;
 * - `byteLength` is the text's UTF-8 length, counted at most once.
 */
import { EssError, invalidArgument } from "../errors.js";
import { requireUtf8, requireWellFormedJson } from "./rules.js";

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

function isJsonObjectValue(value: unknown): boolean {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export class Payload {
  /** True once the text is known to be a JSON object's, well formed. */
  #checked: boolean;
  /** True when the text was decoded from bytes that passed requireUtf8: it holds no raw lone surrogate. */
  #fromUtf8: boolean;
  /** The text's bytes of UTF-8, or -1 until counted. */
  #bytes: number;

  private constructor(
    /** The JSON text, exactly as the client sent it (or as JSON.stringify wrote a value). */
    readonly text: string,
    checked: boolean,
    fromUtf8: boolean,
    bytes: number,
  ) {
    this.#checked = checked;
    this.#fromUtf8 = fromUtf8;
    this.#bytes = bytes;
  }

  /** `{}`, checked: the metadata of an event sent without any. One value, shared (it never changes). */
  static readonly emptyObject = new Payload("{}", true, true, 2);

  /** A caller's own JSON text, not checked yet (the operations check it: `requireJsonObject`). */
  static fromText(text: string): Payload {
    return new Payload(text, false, false, -1);
  }

  /**
   * The text of `bytes` (a gRPC message's data or metadata field), refused with INVALID_ARGUMENT
   * naming `field` when they are not UTF-8. Its JSON is checked by the operations.
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
   * A parsed value, serialized once with JSON.stringify. INVALID_ARGUMENT naming `field` for
   * anything that is not an object, or that holds a lone surrogate in a string or key.
   */
  static fromValue(value: unknown, field: string): Payload {
    if (!isJsonObjectValue(value)) throw invalidArgument(`${field} must be a JSON object`, { field });
    const text = JSON.stringify(value);
    // A toJSON method can turn an object into other JSON; an engine takes this text as an object's.
    if (text.charCodeAt(0) !== OPEN_BRACE) throw invalidArgument(`${field} must be a JSON object`, { field });
    // JSON.stringify writes a lone surrogate as an escape: refused here like one sent as an escape.
    requireWellFormedJson(text, field);
    return new Payload(text, true, false, -1);
  }

  /** True once the text is known to be a JSON object's (see the invariants above). */
  get isChecked(): boolean {
    return this.#checked;
  }

  /**
   * The JSON-object rule, applied once: INVALID_JSON when the text is not JSON, INVALID_ARGUMENT
   * when it is not an object or holds a lone surrogate (raw, or as an escape), each naming
   * `field`. Returns this payload, checked. Nothing to do for a payload checked already.
   */
  requireJsonObject(field: string): Payload {
    if (this.#checked) return this;
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.text);
    } catch {
      throw new EssError("INVALID_JSON", `${field} is not valid JSON`, { field });
    }
    if (!isJsonObjectValue(parsed)) throw invalidArgument(`${field} must be a JSON object`, { field });
    requireWellFormedJson(this.text, field, parsed, this.#fromUtf8);
    this.#checked = true;
    return this;
  }

  /** Bytes of the text in UTF-8 (what the event size limits count), counted once. */
  get byteLength(): number {
    if (this.#bytes < 0) this.#bytes = Buffer.byteLength(this.text, "utf8");
    return this.#bytes;
  }
}
