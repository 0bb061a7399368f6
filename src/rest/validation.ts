/**
 * Request validation for the gateway: compiles the schemas of ./schemas/ with ajv and turns a
 * failure into 400 INVALID_ARGUMENT whose details name the field (`field`, `location`,
 * `reason`). Two validators, because the parts of a request differ: a query string and path
 * are text, so "5" may become the integer 5; a JSON body is already typed, so nothing is
 * coerced (an `event_type` of 5 is refused, not turned into "5"). Nothing is removed or
 * defaulted either: the operations see exactly what the client sent, as the RPC server does.
 */
import { Ajv, type ErrorObject, type Options, type ValidateFunction } from "ajv";
import type { EssError } from "../errors.js";
import { invalidArgument } from "../errors.js";
import { appendBranchBatch, appendBranchSingle, appendRequest, type JsonSchema } from "./schemas/index.js";

export type RequestPart = "body" | "querystring" | "params" | "headers";

const common: Options = {
  allErrors: false,
  useDefaults: false,
  removeAdditional: false,
  // `format` in request schemas is documentation; the operations check UUIDs and the like.
  validateFormats: false,
  strict: true,
  // Keywords OpenAPI adds beside JSON Schema and that documentation tools read, and the
  // extensions of ./schemas/requests.ts (the operations enforce what they say).
  keywords: ["example", "x-exactly-one-of", "x-at-most-one-of"],
};

const textAjv = new Ajv({ ...common, coerceTypes: true });
const jsonAjv = new Ajv({ ...common, coerceTypes: false });

/** Fastify's validator result: `{ error }` refuses the request, `{ value }` replaces the part. */
export type ValidationOutcome = { error: EssError } | { value: unknown };

/**
 * Builds the validator of one part of one route. `bodyOptional`: an absent body (no bytes at
 * all) counts as `{}`, for routes whose every body field is optional.
 */
export function compileValidator(
  schema: JsonSchema,
  part: RequestPart,
  bodyOptional = false,
): (data: unknown) => ValidationOutcome {
  const validate: ValidateFunction = (part === "body" ? jsonAjv : textAjv).compile(schema);
  const isAppend = schema === appendRequest;
  return (data: unknown): ValidationOutcome => {
    // Fastify hands an absent body over as null.
    if (part === "body" && data === null) {
      if (bodyOptional) return { value: {} };
      return { error: invalidArgument("the request needs a JSON body", { field: "body", location: "body" }) };
    }
    if (validate(data)) return { value: data };
    return { error: toValidationError(validate.errors ?? [], part, data, isAppend) };
  };
}

const locationByPart: Record<RequestPart, string> = {
  body: "body",
  querystring: "query",
  params: "path",
  headers: "header",
};

/** `/events/3/data` → `events[3].data`. */
function fieldPath(instancePath: string): string {
  let out = "";
  for (const piece of instancePath.split("/").slice(1)) {
    const name = piece.replace(/~1/g, "/").replace(/~0/g, "~");
    out += /^\d+$/.test(name) ? `[${name}]` : out === "" ? name : `.${name}`;
  }
  return out;
}

function joinField(base: string, name: string): string {
  return base === "" ? name : `${base}.${name}`;
}

function pickError(errors: ErrorObject[], data: unknown, isAppend: boolean): ErrorObject | undefined {
  if (!isAppend) return errors[0];
  // appendRequest is a oneOf of one event and a batch. Report the failure of the branch the body
  // meant, so the message names its bad field instead of "must match exactly one schema".
  const meantBatch = typeof data === "object" && data !== null && "events" in data;
  const branch = meantBatch ? appendBranchBatch : appendBranchSingle;
  const prefix = `#/oneOf/${branch}/`;
  // Within a branch, the last error is the outermost one (ajv reports a nested anyOf's
  // alternatives first, then the anyOf itself).
  const inBranch = errors.filter((e) => e.schemaPath.startsWith(prefix));
  return inBranch[inBranch.length - 1] ?? errors[0];
}

function toValidationError(
  errors: ErrorObject[],
  part: RequestPart,
  data: unknown,
  isAppend: boolean,
): EssError {
  const location = locationByPart[part];
  const error = pickError(errors, data, isAppend);
  if (error === undefined) return invalidArgument(`the request ${location} is not valid`, { location });
  let field = fieldPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  let reason = error.message ?? "is not valid";
  if (error.keyword === "required" && typeof params.missingProperty === "string") {
    field = joinField(field, params.missingProperty);
    reason = "is required";
  } else if (error.keyword === "additionalProperties" && typeof params.additionalProperty === "string") {
    field = joinField(field, params.additionalProperty);
    reason = "is not a known field";
  } else if (error.keyword === "anyOf" || error.keyword === "oneOf") {
    reason = "is not one of its allowed forms (see the OpenAPI document)";
  } else if (error.keyword === "enum" && Array.isArray(params.allowedValues)) {
    reason = `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  if (field === "") field = location;
  const subject =
    part === "querystring"
      ? `query parameter '${field}'`
      : part === "params"
        ? `path parameter '${field}'`
        : `field '${field}'`;
  return invalidArgument(`${subject} ${reason}`, { field, location, reason });
}
