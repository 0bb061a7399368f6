/**
 * How the postgres engine talks to the database: the driver's type parsing, named (prepared)
 * statements, which errors mean the database cannot be reached, and a transaction on a pooled
 * connection.
 */
import { createHash } from "node:crypto";
import pg from "pg";

// int8 as a JS number: positions, revisions and counts stay below 2^53 (docs/contract.md "REST routes").
const int8Oid = 20;
const textParser = (oid: number): ((value: string) => unknown) =>
  // The driver's own parser table is typed loosely; its text parsers take the column's text.
  pg.types.getTypeParser(oid, "text") as (value: string) => unknown;
export const typeParsers = {
  getTypeParser: ((oid: number) =>
    oid === int8Oid
      ? (value: string) => Number(value)
      : textParser(oid)) as pg.CustomTypesConfig["getTypeParser"],
};

/**
 * A named (prepared) statement for a hot query: PostgreSQL parses and plans it once per
 * connection instead of on every call. The name is derived from the text, so it is stable.
 */
const preparedNames = new Map<string, string>();
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = preparedNames.get(text);
  if (name === undefined) {
    name = `ess_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`;
    preparedNames.set(text, name);
  }
  return { name, text, values };
}

/** Connection failures and server shutdowns become UNAVAILABLE; anything else stays a bug. */
export function isConnectionFailure(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | null;
  const code = typeof e?.code === "string" ? e.code : "";
  if (code.startsWith("08") || code.startsWith("57P") || code === "53300") return true;
  if (["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND"].includes(code)) return true;
  const message = typeof e?.message === "string" ? e.message : "";
  return /Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(
    message,
  );
}

/**
 * Runs `body` in a transaction on a connection of `pool`: COMMIT when it resolves, ROLLBACK when
 * it throws. A connection that failed (or could not roll back) is discarded, not reused.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  body: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query("BEGIN");
    try {
      const result = await body(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      throw error;
    }
  } catch (error) {
    if (isConnectionFailure(error)) broken = true;
    throw error;
  } finally {
    client.release(broken);
  }
}
