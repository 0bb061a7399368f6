// Reading the service's /metrics in tests: the text as Prometheus would fetch it, and the value
// of one sample by its name and labels.
import assert from "node:assert/strict";
import type { Service } from "../../src/service.js";
import { formatAddress } from "../../src/config/config.js";

/** The metrics listener's base URL (the service started with SERVICE_METRICS_ENABLED). */
export function metricsUrl(service: Service): string {
  const listener = service.listeners.find((l) => l.name === "metrics");
  assert.ok(listener, "the service started no metrics listener");
  return `http://${formatAddress(listener.address)}`;
}

export async function scrape(service: Service): Promise<string> {
  const response = await fetch(`${metricsUrl(service)}/metrics`);
  assert.equal(response.status, 200);
  return response.text();
}

/**
 * The value of the sample `name{labels}` in the exposition `text` (labels in any order), or
 * null when there is no such sample.
 */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | null {
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      found[pair[1]!] = pair[2]!;
    }
    if (Object.keys(found).length !== Object.keys(labels).length) continue;
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return null;
}
