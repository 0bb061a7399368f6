/**
 * Users and the token signing key of a log-engine service, in `auth.json` in the data
 * directory. Every change rewrites the file atomically (temp file, fsync, rename, fsync the
 * directory), one change at a time, and the in-memory copy changes only after the file did.
 * A write that fails (a full disk) leaves the old file as it was and no temp file behind.
 */
import fs from "node:fs";
import path from "node:path";
import { EssError, unavailable } from "../../errors.js";
import type { Role } from "../../contract/bodies.js";
import type { AuthStore, StoredUser, UserList } from "../engine.js";
import { isOutOfSpace } from "../io-error.js";
import { fsyncDirectory } from "./segment-store.js";

export const AUTH_FILE = "auth.json";

interface AuthFile {
  users: StoredUser[];
  signing_key: string | null;
}

export function writeFileAtomic(dir: string, name: string, data: Buffer | string): void {
  const target = path.join(dir, name);
  const temp = `${target}.tmp`;
  try {
    const fd = fs.openSync(temp, "w");
    try {
      const bytes = typeof data === "string" ? Buffer.from(data, "utf8") : data;
      // writeSync may write less than asked (a nearly full disk): loop until all is written.
      for (let done = 0; done < bytes.length;) done += fs.writeSync(fd, bytes, done, bytes.length - done);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, target);
  } catch (error) {
    // The target was not touched; only the temp file may exist, half written or empty.
    fs.rmSync(temp, { force: true });
    throw error;
  }
  fsyncDirectory(dir);
}

/**
 * A JSON file of the data directory written by writeFileAtomic: its parsed value, undefined
 * without the file, or a problem when it is not JSON (other I/O errors are thrown).
 */
export function readJsonFile(dir: string, name: string): { value: unknown; problem: string | null } {
  let text: string;
  try {
    text = fs.readFileSync(path.join(dir, name), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { value: undefined, problem: null };
    throw error;
  }
  try {
    return { value: JSON.parse(text) as unknown, problem: null };
  } catch {
    return { value: undefined, problem: "not valid JSON" };
  }
}

/** A damaged `auth.json`: the message names the file and what is wrong with it, in one line. */
export class AuthFileError extends Error {
  constructor(file: string, problem: string) {
    super(
      `${file} is damaged: ${problem}; restore it from a backup (or move it away to start with no users)`,
    );
    this.name = "AuthFileError";
  }
}

const roles: readonly string[] = ["admin", "writer", "reader"] satisfies Role[];
const userTextFields = ["username", "tenant_id", "password_hash", "created_at"] as const;

/** Parses and checks the file's shape, so a damaged file stops start-up instead of half-loading. */
function parseAuthFile(file: string, text: string): AuthFile {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // V8 quotes a piece of the file, newlines and all: keep only its reason, on one line.
    const reason = (error as Error).message.replace(/, ".*" is not valid JSON$/s, "").replace(/\s+/g, " ");
    throw new AuthFileError(file, `not valid JSON (${reason})`);
  }
  const body = value as Partial<Record<keyof AuthFile, unknown>> | null;
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new AuthFileError(file, "not a JSON object");
  }
  if (!Array.isArray(body.users)) throw new AuthFileError(file, "'users' is not a list");
  if (body.signing_key !== null && typeof body.signing_key !== "string") {
    throw new AuthFileError(file, "'signing_key' is neither a string nor null");
  }
  body.users.forEach((u: unknown, i) => {
    const user = u as Record<string, unknown> | null;
    if (typeof user !== "object" || user === null)
      throw new AuthFileError(file, `users[${i}] is not an object`);
    for (const field of userTextFields) {
      if (typeof user[field] !== "string" || user[field] === "") {
        throw new AuthFileError(file, `users[${i}].${field} is missing or not a string`);
      }
    }
    if (!roles.includes(user.role as string))
      throw new AuthFileError(file, `users[${i}].role is not a known role`);
  });
  return body as AuthFile;
}

export class LogAuthStore implements AuthStore {
  private users = new Map<string, StoredUser>();
  private signingKey: Buffer | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(private readonly dir: string) {
    const file = path.join(dir, AUTH_FILE);
    if (fs.existsSync(file)) {
      const parsed = parseAuthFile(file, fs.readFileSync(file, "utf8"));
      for (const u of parsed.users) this.users.set(u.username, u);
      this.signingKey = parsed.signing_key ? Buffer.from(parsed.signing_key, "base64") : null;
    }
  }

  private save(users: Map<string, StoredUser>, signingKey: Buffer | null): void {
    const body: AuthFile = {
      users: [...users.values()],
      signing_key: signingKey ? signingKey.toString("base64") : null,
    };
    try {
      writeFileAtomic(this.dir, AUTH_FILE, JSON.stringify(body, null, 2) + "\n");
    } catch (error) {
      // A full disk is the operator's to fix, like a refused append: 503, not a bug (500).
      if (isOutOfSpace(error)) {
        const code = String((error as NodeJS.ErrnoException).code);
        throw unavailable(`the disk is full (${code}): the change to users was not saved; nothing changed`);
      }
      throw error;
    }
  }

  /** Runs changes one after another so two writers never interleave. */
  private serial<T>(fn: () => T): Promise<T> {
    const next = this.chain.then(fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  createUser(user: StoredUser): Promise<void> {
    return this.serial(() => {
      if (this.users.has(user.username)) {
        throw new EssError("USER_EXISTS", `user '${user.username}' already exists`, {
          username: user.username,
        });
      }
      const next = new Map(this.users);
      next.set(user.username, { ...user });
      this.save(next, this.signingKey);
      this.users = next;
    });
  }

  getUser(username: string): Promise<StoredUser | null> {
    const u = this.users.get(username);
    return Promise.resolve(u ? { ...u } : null);
  }

  listUsers(input: { limit: number; cursor: string | null }): Promise<UserList> {
    const names = [...this.users.keys()].sort();
    const after = input.cursor === null ? null : Buffer.from(input.cursor, "base64url").toString("utf8");
    const start = after === null ? 0 : names.findIndex((n) => n > after);
    const from = start === -1 ? names.length : start;
    const page = names.slice(from, from + input.limit);
    const more = from + input.limit < names.length;
    return Promise.resolve({
      users: page.map((n) => ({ ...this.users.get(n)! })),
      next_cursor:
        more && page.length > 0 ? Buffer.from(page[page.length - 1]!, "utf8").toString("base64url") : null,
    });
  }

  deleteUser(username: string): Promise<StoredUser> {
    return this.serial(() => {
      const u = this.users.get(username);
      if (!u) throw new EssError("USER_NOT_FOUND", `user '${username}' was not found`, { username });
      const next = new Map(this.users);
      next.delete(username);
      this.save(next, this.signingKey);
      this.users = next;
      return { ...u };
    });
  }

  countUsers(): Promise<number> {
    return Promise.resolve(this.users.size);
  }

  getOrCreateSigningKey(generate: () => Buffer): Promise<Buffer> {
    return this.serial(() => {
      if (this.signingKey) return Buffer.from(this.signingKey);
      const key = generate();
      this.save(this.users, key);
      this.signingKey = Buffer.from(key);
      return Buffer.from(key);
    });
  }
}
