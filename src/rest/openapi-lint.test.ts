// The OpenAPI document checked by an independent linter (Redocly's, strictest preset: every
// warning counts as an error), and its text rules checked against the operations' validation:
// both read src/limits.ts, and this holds them to it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { Ajv2020 } from "ajv/dist/2020.js";
import { openApiText, buildOpenApiDocument } from "./openapi.js";
import { limits } from "../limits.js";
import {
  parseEventId,
  validatePassword,
  validateStreamId,
  validateUsername,
} from "../operations/validate.js";

test("Redocly's linter (recommended-strict) finds nothing in the OpenAPI document", async () => {
  const config = await createConfig({ extends: ["recommended-strict"] });
  const problems = await lintFromString({ source: openApiText(), absoluteRef: "/openapi.json", config });
  const described = problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`);
  assert.deepEqual(described, []);
});

type Doc = {
  info: { version: string; license?: { name: string }; contact?: unknown };
  paths: Record<
    string,
    Record<string, { description?: string; parameters?: { name: string; schema: object }[] }>
  >;
  components: {
    schemas: Record<
      string,
      { properties?: Record<string, object>; oneOf?: { properties: Record<string, object> }[] }
    >;
  };
};

test("every operation has a description, and info has a license and a contact", () => {
  const doc = buildOpenApiDocument() as unknown as Doc;
  assert.ok(doc.info.license?.name);
  assert.ok(doc.info.contact);
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      assert.ok((operation.description ?? "").length > 20, `${method} ${path} has a description`);
    }
  }
});

/** Whether `validate` accepts `value` (it throws EssError when not). */
function accepts(validate: (value: unknown) => unknown, value: unknown): boolean {
  try {
    validate(value);
    return true;
  } catch {
    return false;
  }
}

test("the document's id, username, password and event_id rules accept exactly what the operations accept", () => {
  const doc = buildOpenApiDocument() as unknown as Doc;
  const ajv = new Ajv2020({ strict: false, validateFormats: false });
  const schemaOf = (path: string, name: string) =>
    doc.paths[path]!.get?.parameters?.find((p) => p.name === name)?.schema ??
    doc.paths[path]!.delete!.parameters!.find((p) => p.name === name)!.schema;
  const idSchema = ajv.compile(schemaOf("/v1/streams/{id}", "id"));
  const usernameSchema = ajv.compile(schemaOf("/v1/admin/users/{username}", "username"));
  const createUser = doc.components.schemas.CreateUserRequest!.properties!;
  const passwordSchema = ajv.compile(createUser.password!);
  const append = doc.components.schemas.AppendRequest!.oneOf![0]!.properties;
  const eventIdSchema = ajv.compile(append.event_id!);
  const eventTypeSchema = ajv.compile(append.event_type!);

  const ids = [
    "orders-1",
    "café/1",
    "a b",
    "",
    "$all",
    "a$",
    "tab\there",
    "del\u007f",
    "c1\u0085",
    "x".repeat(200),
  ];
  for (const id of ids) assert.equal(idSchema(id), accepts(validateStreamId, id), JSON.stringify(id));
  // Byte lengths are the one rule a schema cannot state: 201 ASCII characters fail both, but
  // 101 two-byte characters pass maxLength and fail the 200-byte rule (documented in words).
  assert.equal(idSchema("x".repeat(201)), false);
  assert.equal(accepts(validateStreamId, "é".repeat(101)), false);

  for (const name of ["ann", "a.b_c@d-e", "", "bøb", "a b", "x".repeat(limits.usernameBytesMax + 1)]) {
    assert.equal(usernameSchema(name), accepts(validateUsername, name), JSON.stringify(name));
  }
  for (const password of ["", "short12", "eight888", "x".repeat(limits.passwordBytesMax + 1)]) {
    assert.equal(passwordSchema(password), accepts(validatePassword, password), JSON.stringify(password));
  }
  const uuid = "0f8fad5b-d9cb-469f-a165-70867728950e";
  for (const id of [uuid, uuid.toUpperCase(), "not-a-uuid", `${uuid}0`]) {
    assert.equal(
      eventIdSchema(id),
      accepts((v) => parseEventId(v, "event_id"), id),
      id,
    );
  }
  assert.equal(eventTypeSchema(""), false);
  assert.equal(eventTypeSchema("x".repeat(limits.eventTypeBytesMax + 1)), false);
});
