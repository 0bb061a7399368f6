// Property-based tests generated from the OpenAPI document itself: for every operation, requests
// built from its parameter and body schemas (valid ones, and near-misses that break exactly one
// rule) go to a real running gateway. A valid request is never refused as bad input (400), every
// answer has a status the document lists for that operation, and its body matches the schema
// the document gives for that status.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { buildOpenApiDocument } from "../../src/rest/openapi.js";
import { adminPassword, http, login, responseValidators, startTarget } from "./harness.js";

type Schema = { [keyword: string]: unknown };
interface Parameter {
  name: string;
  in: "path" | "query";
  required: boolean;
  schema: Schema;
}
interface Operation {
  operationId: string;
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: { "application/json": { schema: Schema } } };
  responses: Record<string, { content?: { "application/json": { schema: { $ref: string } } } }>;
}
const document = buildOpenApiDocument() as unknown as {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
};

function resolve(schema: Schema): Schema {
  const ref = schema.$ref;
  if (typeof ref !== "string") return schema;
  return document.components.schemas[ref.split("/").pop()!]!;
}

// Small sizes keep the run short; every bound of the schema is still respected.
const jsonLeaf = fc.oneof(fc.integer(), fc.string({ maxLength: 12 }), fc.boolean(), fc.constant(null));
const jsonObject = fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), jsonLeaf, { maxKeys: 4 });
const textUnit = fc.constantFrom(..."abcxyzABC019-_.@ /é$\u0001".split(""));

/** An arbitrary of the values `schema` accepts (the subset of JSON Schema the document uses). */
function arbitraryOf(input: Schema): fc.Arbitrary<unknown> {
  const schema = resolve(input);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if ("const" in schema) return fc.constant(schema.const);
  const branches = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
  if (branches) return fc.oneof(...branches.map(arbitraryOf));
  if (Array.isArray(schema.type)) {
    return fc.oneof(...(schema.type as string[]).map((type) => arbitraryOf({ ...schema, type })));
  }
  switch (schema.type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer": {
      const min = (schema.minimum as number | undefined) ?? 0;
      const max = Math.min((schema.maximum as number | undefined) ?? 1_000_000, min + 1_000_000);
      return fc.integer({ min, max });
    }
    case "string": {
      if (schema.format === "uuid") return fc.uuid();
      if (schema.contentEncoding === "base64") {
        return fc.uint8Array({ maxLength: 12 }).map((bytes) => Buffer.from(bytes).toString("base64"));
      }
      const minLength = (schema.minLength as number | undefined) ?? 0;
      // Short strings of a small alphabet (with a 2-byte letter, '$' and a control character,
      // which the pattern must keep or drop): within every character and byte bound.
      const maxLength = Math.min((schema.maxLength as number | undefined) ?? 24, minLength + 24);
      const text = fc.string({ unit: textUnit, minLength, maxLength });
      if (typeof schema.pattern !== "string") return text.filter((s) => !/\p{Cc}/u.test(s));
      const pattern = new RegExp(schema.pattern, "u");
      return text.filter((s) => pattern.test(s));
    }
    case "array": {
      const maxLength = Math.min((schema.maxItems as number | undefined) ?? 5, 5);
      return fc.array(arbitraryOf(schema.items as Schema), {
        minLength: (schema.minItems as number | undefined) ?? 0,
        maxLength,
      });
    }
    case "object": {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      if (Object.keys(properties).length === 0) return jsonObject;
      const record = Object.fromEntries(Object.entries(properties).map(([k, v]) => [k, arbitraryOf(v)]));
      const exactlyOne = (schema["x-exactly-one-of"] ?? []) as string[];
      const atMostOne = (schema["x-at-most-one-of"] ?? []) as string[];
      const values = fc.record(record, {
        requiredKeys: [...((schema.required ?? []) as string[]), ...exactlyOne],
      });
      if (exactlyOne.length === 0 && atMostOne.length === 0) return values;
      // The documented pairs: keep one field of each (exactly one: the chosen; at most one: the first sent).
      return fc.tuple(values, fc.nat()).map(([value, pick]) => {
        const out: Record<string, unknown> = { ...value };
        const keep = exactlyOne[pick % exactlyOne.length];
        for (const name of exactlyOne) if (name !== keep) delete out[name];
        for (const name of atMostOne.filter((n) => n in out).slice(1)) delete out[name];
        return out;
      });
    }
    default:
      return fc.constant({});
  }
}

interface Request {
  path: string;
  query: Record<string, unknown>;
  body: unknown;
}

function requestArbitrary(path: string, operation: Operation): fc.Arbitrary<Request> {
  const parameters = operation.parameters ?? [];
  const pathParams = parameters.filter((p) => p.in === "path");
  const queryParams = parameters.filter((p) => p.in === "query");
  return fc.record({
    path: fc
      .record(
        Object.fromEntries(
          // "." and ".." are valid ids that no URL can carry: clients and URL parsers remove such
          // path segments, even percent-encoded ("%2E"), before the request is sent.
          pathParams.map((p) => [p.name, arbitraryOf(p.schema).filter((v) => v !== "." && v !== "..")]),
        ),
      )
      .map((values) =>
        path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(values[name]))),
      ),
    query: fc.record(
      Object.fromEntries(
        // A cursor is opaque: only a next_cursor the service gave is one, so none is invented.
        queryParams.filter((p) => p.name !== "cursor").map((p) => [p.name, arbitraryOf(p.schema)]),
      ),
      {
        requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name),
      },
    ),
    body: operation.requestBody
      ? arbitraryOf(operation.requestBody.content["application/json"].schema)
      : fc.constant(undefined),
  });
}

function url(request: Request): string {
  const search = new URLSearchParams(
    Object.entries(request.query).map(([k, v]) => [k, String(v)] as [string, string]),
  ).toString();
  return search === "" ? request.path : `${request.path}?${search}`;
}

/** Near-misses: a valid request with exactly one rule broken; each must be a 400. */
function nearMisses(template: string, request: Request, operation: Operation): Request[] {
  const out: Request[] = [];
  const parameters = operation.parameters ?? [];
  // Routes with a query string refuse parameters they do not know (others take no query at all).
  if (parameters.some((p) => p.in === "query")) {
    out.push({ ...request, query: { ...request.query, not_a_parameter: "1" } });
  }
  for (const p of parameters.filter((q) => q.in === "query")) {
    const type = resolve(p.schema).type;
    if (type === "integer") out.push({ ...request, query: { ...request.query, [p.name]: "not-a-number" } });
    if (resolve(p.schema).enum) out.push({ ...request, query: { ...request.query, [p.name]: "sideways" } });
    if (resolve(p.schema).pattern) out.push({ ...request, query: { ...request.query, [p.name]: "$bad" } });
  }
  if (parameters.some((p) => p.in === "path" && resolve(p.schema).pattern)) {
    // The path's first parameter segment replaced by one its pattern refuses.
    out.push({ ...request, path: template.replace(/\{\w+\}/, "%24bad") });
  }
  const body = request.body;
  if (body !== undefined && typeof body === "object" && body !== null && !Array.isArray(body)) {
    out.push({ ...request, body: { ...body, not_a_field: 1 } });
    const schema = resolve(operation.requestBody!.content["application/json"].schema);
    const present = Object.keys(body);
    const oneOf = ((schema["x-exactly-one-of"] ?? []) as string[]).filter((name) => present.includes(name));
    for (const name of [...((schema.required ?? []) as string[]), ...oneOf]) {
      const { [name]: _dropped, ...rest } = body as Record<string, unknown>;
      out.push({ ...request, body: rest });
    }
  }
  return out;
}

test("requests generated from the OpenAPI document: valid ones are accepted, near-misses are 400, every answer is as documented", async () => {
  const target = await startTarget("in-process");
  const validate = responseValidators();
  try {
    const token = await login(target, "admin", adminPassword);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const send = async (request: Request) => {
          const response = await http(target, method.toUpperCase(), url(request), {
            token,
            ...(request.body === undefined ? {} : { body: request.body }),
          });
          const label = `${method.toUpperCase()} ${url(request)} ${JSON.stringify(request.body) ?? ""}`;
          const documented = operation.responses[String(response.status)];
          assert.ok(documented, `${label}: status ${response.status} is not documented: ${response.text}`);
          const ref = documented.content?.["application/json"].schema.$ref;
          if (ref) {
            const problem = validate(ref.split("/").pop()!, response.body);
            assert.equal(
              problem,
              null,
              `${label}: ${response.status} body does not match ${ref}: ${response.text}`,
            );
          }
          return { status: response.status, body: response.body as { error?: { code: string } }, label };
        };
        await fc
          .assert(
            fc.asyncProperty(requestArbitrary(path, operation), async (request) => {
              // Deleting the caller itself is refused by rule, whatever the input.
              fc.pre(!(operation.operationId === "deleteUser" && request.path.endsWith("/admin")));
              const valid = await send(request);
              // A scavenge that is not a dry run needs confirm: the one 400 a valid shape can get.
              if (valid.status === 400) {
                assert.equal(valid.body.error?.code, "CONFIRMATION_REQUIRED", `${valid.label} was refused`);
              }
              // ...and it reaches its route.
              assert.notEqual(valid.status, 405, valid.label);
              assert.notEqual(valid.body.error?.code, "NOT_FOUND", valid.label);
              for (const miss of nearMisses(path, request, operation)) {
                const refused = await send(miss);
                assert.equal(refused.status, 400, `${refused.label} was not refused`);
              }
            }),
            { numRuns: 15 },
          )
          .catch((error: unknown) => {
            // fast-check's report names the counterexample; its cause says what was wrong with it.
            const cause =
              error instanceof Error && error.cause instanceof Error ? `\n${error.cause.message}` : "";
            throw new Error(`${error instanceof Error ? error.message : String(error)}${cause}`);
          });
      }
    }
  } finally {
    await target.stop();
  }
});
