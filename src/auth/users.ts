/**
 * Users over the engine's AuthStore: create (hashing the password), list, delete, check
 * credentials, and the first-start `admin`. What leaves this module is a User without any
 * password hash.
 */
import { randomBytes } from "node:crypto";
import { EssError } from "../errors.js";
import type { Role, User, UserList } from "../contract/bodies.js";
import type { AuthStore, StoredUser } from "../storage/engine.js";
import { hashPassword, verifyPassword } from "./password.js";

export const bootstrapAdmin = { username: "admin", tenant_id: "default", role: "admin" as Role };

export function toPublicUser(user: StoredUser): User {
  return { username: user.username, tenant_id: user.tenant_id, role: user.role, created_at: user.created_at };
}

export class Users {
  /** Hash of a random password: checked for unknown usernames so login takes as long either way. */
  #decoyHash: Promise<string> | null = null;

  constructor(
    readonly store: AuthStore,
    private readonly now: () => number = Date.now,
  ) {}

  async create(input: { username: string; password: string; tenant_id: string; role: Role }): Promise<User> {
    const user: StoredUser = {
      username: input.username,
      tenant_id: input.tenant_id,
      role: input.role,
      password_hash: await hashPassword(input.password),
      created_at: new Date(this.now()).toISOString(),
    };
    await this.store.createUser(user);
    return toPublicUser(user);
  }

  async list(page: { limit: number; cursor: string | null }): Promise<UserList> {
    const result = await this.store.listUsers(page);
    return { users: result.users.map(toPublicUser), next_cursor: result.next_cursor };
  }

  async delete(username: string): Promise<User> {
    return toPublicUser(await this.store.deleteUser(username));
  }

  get(username: string): Promise<StoredUser | null> {
    return this.store.getUser(username);
  }

  /** The user when the password is right, else null (unknown user or wrong password alike). */
  async checkCredentials(username: string, password: string): Promise<StoredUser | null> {
    const user = await this.store.getUser(username);
    if (!user) {
      this.#decoyHash ??= hashPassword(randomBytes(16).toString("hex"));
      await verifyPassword(password, await this.#decoyHash);
      return null;
    }
    return (await verifyPassword(password, user.password_hash)) ? user : null;
  }

  /**
   * On first start (no user at all), creates `admin` (tenant `default`) with `password`, or a
   * random one. Returns the generated password, which the caller prints once; null when no
   * user was created or the password was given. Safe when several processes start together:
   * the one that loses the race sees USER_EXISTS and creates nothing.
   *
   * `ignored` says why a given `password` had no effect on a later start, so that the caller
   * can warn: a password that silently does nothing is the first thing a newcomer trips on.
   * It costs one password check, once, at start-up.
   */
  async ensureAdmin(password: string | null): Promise<{
    created: boolean;
    generatedPassword: string | null;
    ignored: "no_admin" | "other_password" | null;
  }> {
    if ((await this.store.countUsers()) > 0) return this.#unused(password);
    const chosen = password ?? randomBytes(18).toString("base64url");
    try {
      await this.create({ ...bootstrapAdmin, password: chosen });
    } catch (error) {
      if (error instanceof EssError && error.code === "USER_EXISTS") return this.#unused(password);
      throw error;
    }
    return { created: true, generatedPassword: password === null ? chosen : null, ignored: null };
  }

  async #unused(
    password: string | null,
  ): Promise<{ created: false; generatedPassword: null; ignored: "no_admin" | "other_password" | null }> {
    let ignored: "no_admin" | "other_password" | null = null;
    if (password !== null) {
      const admin = await this.store.getUser(bootstrapAdmin.username);
      if (!admin) ignored = "no_admin";
      else if (!(await verifyPassword(password, admin.password_hash))) ignored = "other_password";
    }
    return { created: false, generatedPassword: null, ignored };
  }
}
