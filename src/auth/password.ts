/**
 * Password hashing with scrypt (node:crypto). A stored hash is self-describing:
 * `scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>`, so the cost can be raised later without
 * breaking the hashes already stored. Comparison is constant-time. Passwords never leave this
 * module in any other form.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import type { ScryptOptions } from "node:crypto";

/** Cost 2^14 with r=8: about 16 MiB and some tens of milliseconds per hash. */
const cost = { N: 16384, r: 8, p: 1 };
const saltBytes = 16;
const keyBytes = 32;

function derive(password: string, salt: Buffer, options: ScryptOptions, length: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, length, { ...options, maxmem: 256 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(saltBytes);
  const key = await derive(password, salt, cost, keyBytes);
  return ["scrypt", cost.N, cost.r, cost.p, salt.toString("base64"), key.toString("base64")].join("$");
}

/** false for a wrong password and for a stored value that is not a hash this module made. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4] ?? "", "base64");
  const expected = Buffer.from(parts[5] ?? "", "base64");
  if (!N || !r || !p || salt.length === 0 || expected.length === 0) return false;
  const key = await derive(password, salt, { N, r, p }, expected.length);
  return timingSafeEqual(key, expected);
}
