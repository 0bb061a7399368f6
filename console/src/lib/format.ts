/**
 * How the console writes numbers, sizes, times and durations. One format everywhere, the same
 * in every browser locale, so that what an operator reads off one page matches another and a
 * log line: times as `2024-05-01 14:03:07.120` (local, or UTC with a trailing `Z`), sizes in
 * binary units, counts with thin groups of three.
 */

function pad(value: number, width = 2): string {
  return String(value).padStart(width, "0");
}

/** 1234567 → "1,234,567", 12.3456 → "12.35"; null → "–". */
export function formatCount(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  const sign = value < 0 ? "-" : "";
  const abs = Math.abs(value);
  const [whole = "0", fraction] = (
    Number.isInteger(abs) ? String(abs) : String(Number(abs.toFixed(2)))
  ).split(".");
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `${sign}${grouped}${fraction === undefined ? "" : `.${fraction}`}`;
}

const byteUnits = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];

/** 1536 → "1.5 KiB"; under 1 KiB in bytes; three significant digits above. */
export function formatBytes(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return "–";
  let scaled = Math.abs(value);
  let unit = 0;
  while (scaled >= 1024 && unit < byteUnits.length - 1) {
    scaled /= 1024;
    unit += 1;
  }
  const sign = value < 0 ? "-" : "";
  if (unit === 0) return `${sign}${formatCount(scaled)} B`;
  const digits = scaled >= 100 ? 0 : scaled >= 10 ? 1 : 2;
  return `${sign}${scaled.toFixed(digits)} ${byteUnits[unit] ?? ""}`;
}

/** 12.345 → "12.3/s"; null (no rate yet) → "–". */
export function formatRate(perSecond: number | null | undefined): string {
  if (perSecond === null || perSecond === undefined || !Number.isFinite(perSecond)) return "–";
  const digits = perSecond >= 100 ? 0 : 1;
  return `${formatCount(Number(perSecond.toFixed(digits)))}/s`;
}

/** 950 → "950 ms", 61500 → "1 min 1.5 s", 7_200_000 → "2 h 0 min". */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return "–";
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${(seconds - minutes * 60).toFixed(1)} s`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes - hours * 60} min`;
}

/** 90 → "1 min 30 s", 86400 → "1 d": a retention's age limit. */
export function formatSeconds(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return "–";
  const units: [string, number][] = [
    ["d", 86_400],
    ["h", 3_600],
    ["min", 60],
    ["s", 1],
  ];
  const parts: string[] = [];
  let rest = Math.floor(seconds);
  for (const [name, size] of units) {
    const count = Math.floor(rest / size);
    if (count > 0) parts.push(`${count} ${name}`);
    rest -= count * size;
  }
  return parts.length === 0 ? "0 s" : parts.join(" ");
}

/** A time of the contract (RFC 3339) as a Date, or null when it is not one. */
export function parseTime(text: string | null | undefined): Date | null {
  if (typeof text !== "string" || text === "") return null;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * `2024-05-01 14:03:07.120` in local time, or `2024-05-01 12:03:07.120Z` in UTC. An unparseable
 * input comes back as it is (never "Invalid Date").
 */
export function formatTime(text: string | null | undefined, utc: boolean): string {
  const date = parseTime(text);
  if (date === null) return text ?? "–";
  const [year, month, day, hours, minutes, seconds, ms] = utc
    ? [
        date.getUTCFullYear(),
        date.getUTCMonth() + 1,
        date.getUTCDate(),
        date.getUTCHours(),
        date.getUTCMinutes(),
        date.getUTCSeconds(),
        date.getUTCMilliseconds(),
      ]
    : [
        date.getFullYear(),
        date.getMonth() + 1,
        date.getDate(),
        date.getHours(),
        date.getMinutes(),
        date.getSeconds(),
        date.getMilliseconds(),
      ];
  const stamp = `${year}-${pad(month)}-${pad(day)} ${pad(hours)}:${pad(minutes)}:${pad(seconds)}.${pad(ms, 3)}`;
  return utc ? `${stamp}Z` : stamp;
}

/** The local zone's offset at `date`: "UTC+02:00". */
export function formatZone(date: Date): string {
  const offset = -date.getTimezoneOffset();
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  return `UTC${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** Text for a time's tooltip: the other clock than the one shown. */
export function timeTooltip(text: string | null | undefined, utc: boolean): string {
  const date = parseTime(text);
  if (date === null) return "";
  return utc ? `${formatTime(text, false)} local (${formatZone(date)})` : `${formatTime(text, true)} UTC`;
}

/** "a1b2c3d4-…" → "a1b2c3d4": enough of an id to tell rows apart. */
export function shortId(id: string): string {
  return id.length > 8 ? id.slice(0, 8) : id;
}

/** One line of a payload for a table cell, cut at `max` characters. */
export function previewText(text: string, max = 120): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length <= max ? oneLine : `${oneLine.slice(0, max - 1)}…`;
}
