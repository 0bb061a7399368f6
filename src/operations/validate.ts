/**
 * Syntactic validation of every operation's request: loosely typed input in (what a REST body
 * or query string or a gRPC message holds), a normalized, typed request out, or an EssError
 * (INVALID_ARGUMENT, INVALID_JSON, PAYLOAD_TOO_LARGE) naming the field.
 *
 * These functions are pure: they read no storage and know no caller (the one thing they change
 * is a payload's own note that it has been checked), so a request gets the same answer
 * whichever transport carries it, and the gRPC client (src/client/) runs the same ones before
 * sending, so a REST request relayed through `ess gateway --upstream` fails exactly as it would
 * in-process.
 *
 * This is the one authoritative check of a request. The rules themselves (ids, event types,
 * event ids, usernames, control characters, UTF-8, an append's counts and sizes) are written
 * once in ../contract/rules.ts, which the engines' own guards call too, and a payload's
 * JSON rule in ../contract/payload.ts; bounds come from src/limits.ts (docs/contract.md
 * "Limits"). Every text field and JSON payload must be valid UTF-8: a lone surrogate is
 * INVALID_ARGUMENT.
 *
 * The operations run them after authentication (./authenticate.ts): a request without a valid
 * token is UNAUTHENTICATED whatever it holds.
 */
import { invalidArgument } from "../errors.js";
import { limits } from "../limits.js";
import type {
  AppendRequest,
  CreateUserRequest,
  DeleteStreamRequest,
  ExpectedRevision,
  JobKind,
  JobRequest,
  ListStreamsRequest,
  LoginRequest,
  MetadataDocument,
  PageRequest,
  ReadAllRequest,
  ReadDirection,
  ReadRequest,
  Retention,
  Role,
  ScavengeRequest,
  SetMetadataRequest,
  SetRetentionRequest,
  StartJobRequest,
  StreamRequest,
  TenantRequest,
  UsernameRequest,
} from "../contract/bodies.js";
import { parseEventFilter, type EventFilter } from "../contract/event-filter.js";
import { Payload } from "../contract/payload.js";
import {
  eventFieldNames,
  singleEventFieldNames,
  type EventFieldNames,
} from "../contract/event-field-names.js";
import {
  requireExpectedMetadataRevision,
  requireMetadataDocument,
  type ExpectedMetadataRevision,
} from "../contract/stream-metadata.js";
import {
  isUuid,
  requireAppendBytes,
  requireBase64,
  requireDistinctEventIds,
  requireEventBytes,
  requireEventCount,
  requireEventType,
  requireExpectedRevision,
  requireId,
  requireUsername,
  requireWellFormed,
} from "../contract/rules.js";

export const roles: readonly Role[] = ["admin", "writer", "reader"];

/** Reserved stream id of the tenant's global order in subscriptions. */
export const allStreamId = "$all";

/** Longest opaque listing cursor accepted, in characters. */
const cursorCharsMax = 1024;

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

function isAbsent(value: unknown): value is undefined | null {
  return value === undefined || value === null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Payload);
}

export function validateStreamId(value: unknown, field = "stream_id"): string {
  return requireId(value, field);
}

export function validateTenantId(value: unknown, field = "tenant_id"): string {
  return requireId(value, field);
}

/** The `tenant` parameter of stream routes: absent (null) or a tenant id. */
export function parseTenantParam(value: unknown): string | null {
  if (isAbsent(value) || value === "") return null;
  return validateTenantId(value, "tenant");
}

/**
 * A whole number from a JSON number or a decimal string (query strings are text), within
 * [min, max]. Absent (or an empty string): `fallback`.
 */
export function parseInteger<T extends number | null>(
  value: unknown,
  field: string,
  fallback: T,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number | T {
  if (isAbsent(value) || value === "") return fallback;
  let n: number;
  if (typeof value === "number") n = value;
  else if (typeof value === "string" && /^-?\d+$/.test(value.trim())) n = Number(value.trim());
  else throw invalidArgument(`${field} must be a whole number`, { field });
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw invalidArgument(
      max === Number.MAX_SAFE_INTEGER
        ? `${field} must be a whole number of at least ${min}`
        : `${field} must be a whole number from ${min} to ${max}`,
      { field },
    );
  }
  return n;
}

/** A page size: 1..readPageMax, default readPageDefault. */
export function parseLimit(value: unknown): number {
  return parseInteger(value, "limit", limits.readPageDefault, 1, limits.readPageMax);
}

export function parseCursor(value: unknown): string | null {
  if (isAbsent(value) || value === "") return null;
  if (typeof value !== "string" || value.length > cursorCharsMax) {
    throw invalidArgument("cursor must be the next_cursor of a previous page", { field: "cursor" });
  }
  return requireWellFormed(value, "cursor");
}

function parsePrefix(value: unknown): string | null {
  if (isAbsent(value) || value === "") return null;
  if (typeof value !== "string" || utf8Bytes(value) > limits.idBytesMax) {
    throw invalidArgument(`prefix must be a string of at most ${limits.idBytesMax} bytes`, {
      field: "prefix",
    });
  }
  return requireWellFormed(value, "prefix");
}

function parseBoolean(value: unknown, field: string): boolean {
  if (isAbsent(value)) return false;
  if (typeof value === "boolean") return value;
  if (value === "true") return true;
  if (value === "false") return false;
  throw invalidArgument(`${field} must be true or false`, { field });
}

export function parseDirection(value: unknown): ReadDirection {
  if (isAbsent(value) || value === "") return "forward";
  if (value === "forward" || value === "backward") return value;
  throw invalidArgument("direction must be forward or backward", { field: "direction" });
}

export function parseExpectedRevision(value: unknown): ExpectedRevision {
  if (isAbsent(value) || value === "") return "any";
  // A query string or a form carries a revision as decimal text.
  return requireExpectedRevision(typeof value === "string" && /^\d+$/.test(value) ? Number(value) : value);
}

/**
 * Event data or metadata as a checked Payload (../contract/payload.ts): a payload an interface
 * made is checked here unless it was checked where it was made (the REST gateway's, or bytes),
 * and kept byte for byte; a Buffer is bytes; a parsed value (any JSON value) is serialized once.
 */
export function toPayload(value: unknown, field: string): Payload {
  if (value instanceof Payload) return value.requireJson(field);
  // An in-process caller's bytes (what a read gives for a binary event) stay bytes.
  if (Buffer.isBuffer(value)) return Payload.fromBytes(value);
  return Payload.fromValue(value, field);
}

/**
 * An event's `data` or `metadata` (`part`), given as JSON (`part`) or as base64 bytes
 * (`part_base64`), at most one of the two; undefined when neither is there (null counts as
 * absent for metadata, which has a default; a JSON null is data like any other value).
 */
/** The base64 field of each part, as constants: a key built per event would be looked up as a new string. */
const base64Field = { data: "data_base64", metadata: "metadata_base64" } as const;

function partPayload(
  value: Record<string, unknown>,
  names: EventFieldNames,
  part: "data" | "metadata",
): Payload | undefined {
  const json = value[part];
  const base64 = value[base64Field[part]];
  const jsonSent = part === "data" ? json !== undefined : !isAbsent(json);
  if (isAbsent(base64)) return jsonSent ? toPayload(json, names[part]) : undefined;
  const base64Name = names[base64Field[part]];
  if (jsonSent) {
    throw invalidArgument(`send ${names[part]} or ${base64Name}, not both`, { field: base64Name });
  }
  return Payload.fromBytes(requireBase64(base64, base64Name));
}

export function parseEventId(value: unknown, field: string): string | null {
  if (isAbsent(value)) return null;
  if (typeof value !== "string" || !isUuid(value)) {
    throw invalidArgument(`${field} must be a UUID`, { field });
  }
  return value.toLowerCase();
}

/**
 * One event, normalized: data and metadata are checked payloads (JSON text of any value, or
 * bytes: a binary event's data, metadata sent as bytes); event_id null means "generate one".
 */
export interface ParsedEvent {
  event_type: string;
  data: Payload;
  metadata: Payload;
  event_id: string | null;
}

export interface ParsedAppend {
  stream_id: string;
  tenant: string | null;
  events: ParsedEvent[];
  expected_revision: ExpectedRevision;
}

/** One event and the bytes its data and metadata hold (counted once, for both limits). */
function parseEvent(
  value: Record<string, unknown>,
  names: EventFieldNames,
): { event: ParsedEvent; bytes: number } {
  const eventType = requireEventType(value.event_type, names.event_type);
  const data = partPayload(value, names, "data");
  if (data === undefined) {
    throw invalidArgument(`${names.data} is required`, { field: names.data });
  }
  const metadata = partPayload(value, names, "metadata") ?? Payload.emptyObject;
  const bytes = data.byteLength + metadata.byteLength;
  requireEventBytes(bytes, names.data);
  return {
    event: {
      event_type: eventType,
      data,
      metadata,
      event_id: parseEventId(value.event_id, names.event_id),
    },
    bytes,
  };
}

/** The fields of a single-event append, which a batch (`events`) must not also carry. */
const singleEventFields = [
  "event_type",
  "data",
  "data_base64",
  "metadata",
  "metadata_base64",
  "event_id",
] as const;

export function parseAppendRequest(request: AppendRequest): ParsedAppend {
  const streamId = validateStreamId(request.stream_id);
  const tenant = parseTenantParam(request.tenant);
  let events: ParsedEvent[];
  let total = 0;
  if (request.events !== undefined) {
    for (const name of singleEventFields) {
      if (request[name] !== undefined) {
        throw invalidArgument("send either one event or a batch in events, not both", { field: "events" });
      }
    }
    const list = request.events;
    if (!Array.isArray(list)) throw invalidArgument("events must be an array", { field: "events" });
    requireEventCount(list.length);
    events = list.map((item: unknown, index) => {
      const names = eventFieldNames(index);
      if (!isPlainObject(item)) {
        throw invalidArgument(`${names.event} must be an object`, { field: names.event });
      }
      const { event, bytes } = parseEvent(item, names);
      total += bytes;
      return event;
    });
  } else {
    const { event_type, data, data_base64, metadata, metadata_base64, event_id } = request;
    const single = { event_type, data, data_base64, metadata, metadata_base64, event_id };
    const { event, bytes } = parseEvent(single, singleEventFieldNames);
    total = bytes;
    events = [event];
  }
  requireAppendBytes(total);
  requireDistinctEventIds(events);
  return {
    stream_id: streamId,
    tenant,
    events,
    expected_revision: parseExpectedRevision(request.expected_revision),
  };
}

export interface ParsedRead {
  stream_id: string;
  tenant: string | null;
  from: number | null;
  limit: number;
  direction: ReadDirection;
}

export function parseReadRequest(request: ReadRequest): ParsedRead {
  return {
    stream_id: validateStreamId(request.stream_id),
    tenant: parseTenantParam(request.tenant),
    from: parseInteger(request.from, "from", null),
    limit: parseLimit(request.limit),
    direction: parseDirection(request.direction),
  };
}

export interface ParsedStream {
  stream_id: string;
  tenant: string | null;
}

export function parseStreamRequest(request: StreamRequest): ParsedStream {
  return { stream_id: validateStreamId(request.stream_id), tenant: parseTenantParam(request.tenant) };
}

export interface ParsedDelete extends ParsedStream {
  expected_revision: ExpectedRevision;
  tombstone: boolean;
}

export function parseDeleteRequest(request: DeleteStreamRequest): ParsedDelete {
  return {
    ...parseStreamRequest(request),
    expected_revision: parseExpectedRevision(request.expected_revision),
    tombstone: parseBoolean(request.tombstone, "tombstone"),
  };
}

export interface ParsedSetMetadata extends ParsedStream {
  metadata: MetadataDocument;
  expected_metadata_revision: ExpectedMetadataRevision;
}

export function parseSetMetadataRequest(request: SetMetadataRequest): ParsedSetMetadata {
  return {
    ...parseStreamRequest(request),
    metadata: requireMetadataDocument(request.metadata),
    expected_metadata_revision: requireExpectedMetadataRevision(request.expected_metadata_revision),
  };
}

export interface ParsedSetRetention extends ParsedStream {
  retention: Retention;
}

export function parseSetRetentionRequest(request: SetRetentionRequest): ParsedSetRetention {
  return {
    ...parseStreamRequest(request),
    retention: {
      max_age_seconds: parseInteger(request.max_age_seconds, "max_age_seconds", null, 1),
      max_count: parseInteger(request.max_count, "max_count", null, 1),
      truncate_before: parseInteger(request.truncate_before, "truncate_before", null, 0),
    },
  };
}

export interface ParsedListStreams {
  tenant: string | null;
  prefix: string | null;
  limit: number;
  cursor: string | null;
}

export function parseListStreamsRequest(request: ListStreamsRequest): ParsedListStreams {
  return {
    tenant: parseTenantParam(request.tenant),
    prefix: parsePrefix(request.prefix),
    limit: parseLimit(request.limit),
    cursor: parseCursor(request.cursor),
  };
}

export interface ParsedReadAll {
  tenant: string | null;
  direction: ReadDirection;
  from_position: number | null;
  limit: number;
  filter: EventFilter;
}

export function parseReadAllRequest(request: ReadAllRequest): ParsedReadAll {
  return {
    tenant: parseTenantParam(request.tenant),
    direction: parseDirection(request.direction),
    from_position: parseInteger(request.from_position, "from_position", null),
    limit: parseLimit(request.limit),
    filter: parseEventFilter(request),
  };
}

export interface ParsedPage {
  limit: number;
  cursor: string | null;
}

export function parsePageRequest(request: PageRequest): ParsedPage {
  return { limit: parseLimit(request.limit), cursor: parseCursor(request.cursor) };
}

export function parseTenantRequest(request: TenantRequest): { tenant_id: string } {
  return { tenant_id: validateTenantId(request.tenant_id) };
}

export interface ParsedScavenge {
  dry_run: boolean;
  confirm: boolean;
}

export function parseScavengeRequest(request: ScavengeRequest): ParsedScavenge {
  return {
    dry_run: parseBoolean(request.dry_run, "dry_run"),
    confirm: parseBoolean(request.confirm, "confirm"),
  };
}

export interface ParsedStartJob extends ParsedScavenge {
  kind: JobKind;
}

const jobKinds: readonly JobKind[] = ["verify", "scavenge"];

/** dry_run and confirm apply to a scavenge; a verify job ignores them (false). */
export function parseStartJobRequest(request: StartJobRequest): ParsedStartJob {
  const kind = request.kind;
  if (typeof kind !== "string" || !(jobKinds as readonly string[]).includes(kind)) {
    throw invalidArgument(`kind must be one of ${jobKinds.join(", ")}`, { field: "kind" });
  }
  const options = parseScavengeRequest(request);
  return kind === "verify"
    ? { kind: "verify", dry_run: false, confirm: false }
    : { kind: "scavenge", ...options };
}

export function parseJobRequest(request: JobRequest): { job_id: string } {
  const id = request.job_id;
  if (typeof id !== "string" || !isUuid(id)) {
    throw invalidArgument("job_id must be a UUID", { field: "job_id" });
  }
  return { job_id: id.toLowerCase() };
}

export function validateUsername(value: unknown, field = "username"): string {
  return requireUsername(value, field);
}

/** Shortest password a user may be given (the admin's SERVICE_ADMIN_PASSWORD too). */
export const passwordCharsMin = limits.passwordCharsMin;

export function validatePassword(value: unknown): string {
  if (typeof value !== "string") throw invalidArgument("password must be a string", { field: "password" });
  requireWellFormed(value, "password");
  if (value.length < passwordCharsMin || utf8Bytes(value) > limits.passwordBytesMax) {
    throw invalidArgument(
      `password must be at least ${passwordCharsMin} characters and at most ${limits.passwordBytesMax} bytes`,
      { field: "password" },
    );
  }
  return value;
}

export function validateRole(value: unknown): Role {
  if (typeof value === "string" && (roles as readonly string[]).includes(value)) return value as Role;
  throw invalidArgument("role must be admin, writer or reader", { field: "role" });
}

export interface ParsedCreateUser {
  username: string;
  password: string;
  tenant_id: string;
  role: Role;
}

export function parseCreateUserRequest(request: CreateUserRequest): ParsedCreateUser {
  return {
    username: validateUsername(request.username),
    password: validatePassword(request.password),
    tenant_id: validateTenantId(request.tenant_id),
    role: validateRole(request.role),
  };
}

export function parseUsernameRequest(request: UsernameRequest): { username: string } {
  return { username: validateUsername(request.username) };
}

/**
 * Login input: only types are checked here; a username or password that cannot exist simply
 * fails to log in (UNAUTHENTICATED), so login never tells which part was wrong.
 */
export function parseLoginRequest(request: LoginRequest): { username: string; password: string } {
  if (typeof request.username !== "string") {
    throw invalidArgument("username must be a string", { field: "username" });
  }
  if (typeof request.password !== "string") {
    throw invalidArgument("password must be a string", { field: "password" });
  }
  return {
    username: requireWellFormed(request.username, "username"),
    password: requireWellFormed(request.password, "password"),
  };
}
