import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { errorCodes } from "../errors.js";
import { httpStatusByCode } from "./http-errors.js";
import { buildOpenApiDocument } from "./openapi.js";

interface ErrorSchema {
  properties: { error: { properties: { code: { enum: string[] } } } };
}

async function docsErrorTable(): Promise<Map<string, number>> {
  const text = await readFile(new URL("../../../docs/errors.md", import.meta.url), "utf8");
  const rows = new Map<string, number>();
  for (const match of text.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm))
    rows.set(match[1] ?? "", Number(match[2]));
  return rows;
}

test("the error registry, the docs' error table and the OpenAPI error code enum list the same codes", async () => {
  const document = buildOpenApiDocument() as { components: { schemas: { Error: ErrorSchema } } };
  const openApiCodes = document.components.schemas.Error.properties.error.properties.code.enum;
  const table = await docsErrorTable();
  assert.deepEqual([...openApiCodes].sort(), [...errorCodes].sort());
  assert.deepEqual([...table.keys()].sort(), [...errorCodes].sort());
});

test("the docs' error table gives every code the HTTP status the gateway answers with", async () => {
  const table = await docsErrorTable();
  for (const code of errorCodes) assert.equal(table.get(code), httpStatusByCode[code], code);
});

test("the HTTP statuses follow docs/contract.md, Errors", () => {
  const design: Record<number, string[]> = {
    400: ["INVALID_JSON", "INVALID_ARGUMENT", "CONFIRMATION_REQUIRED"],
    401: ["UNAUTHENTICATED"],
    403: ["PERMISSION_DENIED"],
    404: ["STREAM_NOT_FOUND", "TENANT_NOT_FOUND", "USER_NOT_FOUND", "JOB_NOT_FOUND", "NOT_FOUND"],
    405: ["METHOD_NOT_ALLOWED"],
    409: ["WRONG_EXPECTED_REVISION", "SCAVENGE_IN_PROGRESS", "USER_EXISTS"],
    410: ["STREAM_TOMBSTONED"],
    413: ["PAYLOAD_TOO_LARGE"],
    415: ["UNSUPPORTED_MEDIA_TYPE"],
    429: ["RATE_LIMITED"],
    503: ["UNAVAILABLE"],
    500: ["INTERNAL"],
  };
  for (const [status, codes] of Object.entries(design)) {
    for (const code of codes)
      assert.equal(httpStatusByCode[code as keyof typeof httpStatusByCode], Number(status), code);
  }
});
