/**
 * The small pieces the REST gateway's JSON Schemas are built from (counts, timestamps, ids, roles,
 * objects whose listed fields are required). See ./index.ts for what the schemas are for.
 */
import { textPatterns } from "../../contract/rules.js";
import { limits } from "../../limits.js";

/** A JSON Schema object (kept loose: schemas are data here, checked by ajv and the OpenAPI validator). */
export type JsonSchema = { [keyword: string]: unknown };

export const safeIntegerMax = Number.MAX_SAFE_INTEGER;

export const count = (description: string): JsonSchema => ({ type: "integer", minimum: 0, description });
export const nullableCount = (description: string): JsonSchema => ({
  type: ["integer", "null"],
  minimum: 0,
  description,
});
export const timestamp = (description: string): JsonSchema => ({
  type: "string",
  format: "date-time",
  description,
});
export const nullableTimestamp = (description: string): JsonSchema => ({
  type: ["string", "null"],
  format: "date-time",
  description,
});
export const role: JsonSchema = {
  type: "string",
  enum: ["admin", "writer", "reader"],
  description: "The user's role.",
};

/**
 * The text rules of src/contract/rules.ts as schema keywords. JSON Schema counts `maxLength` in
 * characters, the service in bytes of UTF-8: a string within the byte limit is always within
 * maxLength, so maxLength is stated as a necessary bound and the byte rule in the description.
 */
export const idText = (what: string): JsonSchema => ({
  type: "string",
  minLength: 1,
  maxLength: limits.idBytesMax,
  pattern: textPatterns.id,
  description: `${what}: 1..${limits.idBytesMax} bytes of UTF-8 (not characters), no control characters, not starting with '$'.`,
});
export const usernameText = (description: string): JsonSchema => ({
  type: "string",
  minLength: 1,
  maxLength: limits.usernameBytesMax,
  pattern: textPatterns.username,
  description,
});

export function object(properties: Record<string, JsonSchema>, extra: JsonSchema = {}): JsonSchema {
  return { type: "object", properties, required: Object.keys(properties), ...extra };
}

// ---------------------------------------------------------------------------------------------
// Path parameters and query strings. Path ids arrive percent-decoded; the operations validate them.
