/**
 * Users and the token signing key, kept in the database so every node sharing it accepts every
 * node's tokens and sees every node's users. Creating the signing key is race-free across nodes:
 * the first insert wins (ON CONFLICT DO NOTHING) and everyone reads the winner's key.
 */
import type pg from "pg";
import { EssError } from "../../errors.js";
import type { Role } from "../../contract/bodies.js";
import type { AuthStore, StoredUser, UserList } from "../engine.js";

interface UserRow {
  username: string;
  tenant_id: string;
  role: Role;
  password_hash: string;
  created_at: Date;
}

function toUser(row: UserRow): StoredUser {
  return {
    username: row.username,
    tenant_id: row.tenant_id,
    role: row.role,
    password_hash: row.password_hash,
    created_at: row.created_at.toISOString(),
  };
}

const userColumns = "username, tenant_id, role, password_hash, created_at";

export function encodeCursor(parts: string[]): string {
  return Buffer.from(JSON.stringify(parts), "utf8").toString("base64url");
}

/** Decodes a cursor made by encodeCursor with `count` parts; INVALID_ARGUMENT otherwise. */
export function decodeCursor(cursor: string, count: number): string[] {
  try {
    const parts: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (Array.isArray(parts) && parts.length === count && parts.every((p) => typeof p === "string")) {
      return parts;
    }
  } catch {
    // falls through to the error below
  }
  throw new EssError("INVALID_ARGUMENT", "cursor is not valid", { field: "cursor" });
}

export class PostgresAuthStore implements AuthStore {
  constructor(private readonly pool: pg.Pool) {}

  async createUser(user: StoredUser): Promise<void> {
    const result = await this.pool.query(
      `INSERT INTO ess_users (${userColumns}) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (username) DO NOTHING`,
      [user.username, user.tenant_id, user.role, user.password_hash, user.created_at],
    );
    if (result.rowCount !== 1) {
      throw new EssError("USER_EXISTS", `user '${user.username}' already exists`, {
        username: user.username,
      });
    }
  }

  async getUser(username: string): Promise<StoredUser | null> {
    const result = await this.pool.query<UserRow>(
      `SELECT ${userColumns} FROM ess_users WHERE username = $1`,
      [username],
    );
    const row = result.rows[0];
    return row ? toUser(row) : null;
  }

  async listUsers(input: { limit: number; cursor: string | null }): Promise<UserList> {
    const after = input.cursor === null ? null : (decodeCursor(input.cursor, 1)[0] ?? null);
    const result = await this.pool.query<UserRow>(
      `SELECT ${userColumns} FROM ess_users WHERE ($1::text IS NULL OR username > $1)
       ORDER BY username LIMIT $2`,
      [after, input.limit + 1],
    );
    const rows = result.rows.slice(0, input.limit);
    const last = rows[rows.length - 1];
    return {
      users: rows.map(toUser),
      next_cursor: result.rows.length > input.limit && last ? encodeCursor([last.username]) : null,
    };
  }

  async deleteUser(username: string): Promise<StoredUser> {
    const result = await this.pool.query<UserRow>(
      `DELETE FROM ess_users WHERE username = $1 RETURNING ${userColumns}`,
      [username],
    );
    const row = result.rows[0];
    if (!row) throw new EssError("USER_NOT_FOUND", `user '${username}' was not found`, { username });
    return toUser(row);
  }

  async countUsers(): Promise<number> {
    const result = await this.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM ess_users");
    return Number(result.rows[0]?.n ?? 0);
  }

  async getOrCreateSigningKey(generate: () => Buffer): Promise<Buffer> {
    const existing = await this.pool.query<{ key: Buffer }>("SELECT key FROM ess_signing_key WHERE id = 1");
    const found = existing.rows[0];
    if (found) return found.key;
    await this.pool.query(
      "INSERT INTO ess_signing_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
      [generate()],
    );
    const winner = await this.pool.query<{ key: Buffer }>("SELECT key FROM ess_signing_key WHERE id = 1");
    const row = winner.rows[0];
    if (!row) throw new EssError("INTERNAL", "internal error");
    return row.key;
  }
}
