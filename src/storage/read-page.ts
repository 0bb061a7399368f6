/**
 * The byte budget of one read page, shared by the engines: ReadStreamInput.bytes_max and
 * ReadAllInput.bytes_max, defaulting to limits.readPageBytesMax.
 */
import { invalidArgument } from "../errors.js";
import { limits } from "../limits.js";

export function pageBytesMax(bytesMax: number | undefined): number {
  if (bytesMax === undefined) return limits.readPageBytesMax;
  if (!Number.isSafeInteger(bytesMax) || bytesMax < 1) {
    throw invalidArgument("bytes_max must be a whole number >= 1", { field: "bytes_max" });
  }
  return bytesMax;
}
