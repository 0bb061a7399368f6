/**
 * The JSON Schemas of the REST gateway: what it validates requests with and what it declares
 * for responses. The OpenAPI document (./openapi.ts) is generated from these same objects, so
 * the document and the gateway cannot disagree. They use only keywords that mean the same in
 * JSON Schema draft-07 (what the validator runs) and 2020-12 (what OpenAPI 3.1 embeds).
 *
 * Request schemas check shapes and types (a field is a string, a limit is 1..1000); the
 * operations still check every rule (byte lengths, id characters, UUIDs, roles), so a request
 * that passes here may still be refused there, with the same error shape.
 * Response schemas list the contract's fields as required and allow more (docs/contract.md "REST routes":
 * "more fields may be added").
 */
export type { JsonSchema } from "./building-blocks.js";
export * from "./requests.js";
export * from "./results.js";
export * from "./admin-results.js";
export * from "./stream-metadata.js";
