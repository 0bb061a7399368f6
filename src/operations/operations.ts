/**
 * The RPC operations (the `Operations` interface of ./contract.ts) over a storage engine.
 * Every rule lives here, in this order for each call:
 *   1. authentication (./authenticate.ts): without a valid token the answer is UNAUTHENTICATED
 *      whatever the request holds (an interface that authenticated already passes the caller
 *      in the context, and it is not verified again);
 *   2. syntax and limits (./validate.ts; pure, so the gRPC client can run them too), then the
 *      role the operation needs;
 *   3. the tenant the call acts in (own, or `tenant` for an admin);
 *   4. the operation's own rules (scavenge confirm), then the engine.
 * Event data/metadata become checked payloads here (../contract/payload.ts), which the engine
 * stores as they are, and pass through untouched on reads: a page's events may be views over
 * the engine's stored bytes (../contract/stored-event-record.ts), since every caller of a read
 * is a transport that writes its answer at once and keeps no event.
 *
 * Roles: reader reads in its tenant (stream metadata too); writer also appends, sets retention
 * and metadata, and deletes or tombstones streams in its tenant; admin does everything in every
 * tenant (docs/auth.md).
 *
 * Failures are EssError; anything else is logged here once and answered as a bare INTERNAL.
 * During shutdown new calls get UNAVAILABLE and `drain()` waits for the calls in flight.
 */
import { randomUUID } from "node:crypto";
import { EssError, streamNotFound, toEssError } from "../errors.js";
import { limits } from "../limits.js";
import type { Logger } from "../logger.js";
import type { ServiceMetrics } from "../metrics/metrics.js";
import type { StorageEngine } from "../storage/engine.js";
import { serviceVersion } from "../version.js";
import type { TokenService } from "../auth/tokens.js";
import type { Users } from "../auth/users.js";
import type { LoginResult } from "../contract/bodies.js";
import type { Operations } from "./contract.js";
import { JobRegistry, type JobWork } from "./jobs.js";
import type { ParsedScavenge, ParsedStartJob } from "./validate.js";
import { createCallRunner } from "./call-runner.js";
import { createLoginDesk } from "./login.js";
import type { Authenticator } from "./authenticate.js";
import { LoginThrottle } from "./login-throttle.js";
import { requireRole, resolveTenant } from "./authenticate.js";
import {
  parseAppendRequest,
  parseCreateUserRequest,
  parseJobRequest,
  parseListStreamsRequest,
  parsePageRequest,
  parseReadAllRequest,
  parseReadRequest,
  parseScavengeRequest,
  parseSetRetentionRequest,
  parseDeleteRequest,
  parseSetMetadataRequest,
  parseStartJobRequest,
  parseStreamRequest,
  parseTenantRequest,
  parseUsernameRequest,
} from "./validate.js";

/** How many of a tenant's largest streams GetTenant lists. */
const largestStreamsCount = 10;

export interface OperationsDeps {
  engine: StorageEngine;
  users: Users;
  tokens: TokenService;
  authenticator: Authenticator;
  logger: Logger;
  /** Milliseconds since the epoch when the service started (for uptime). */
  startedAt: number;
  now?: () => number;
  /** Calls slower than this many milliseconds are logged. Default 1000. */
  slowOperationMs?: number;
  /** Counts failed logins (./login-throttle.ts); default: one with the bounds of limits.ts. */
  loginThrottle?: LoginThrottle;
  /** The process's jobs (./jobs.ts); default: one with the bounds of limits.ts. */
  jobs?: JobRegistry;
  /**
   * The service's metrics (../metrics/metrics.ts), when SERVICE_METRICS_ENABLED. Every
   * interface's call passes through `run` below, so each request is counted here, once.
   */
  metrics?: ServiceMetrics;
}

/** Counts a verify or scavenge run by its outcome in the metrics, if any. */
function countedRun<T>(
  metrics: ServiceMetrics | undefined,
  kind: "verify" | "scavenge",
  run: Promise<T>,
): Promise<T> {
  if (metrics === undefined) return run;
  return run.then(
    (result) => {
      metrics.maintenanceRun(kind, null);
      return result;
    },
    (error: unknown) => {
      metrics.maintenanceRun(kind, toEssError(error).code);
      throw error;
    },
  );
}

/** A real scavenge removes events for good: it needs confirm, on the synchronous route and as a job. */
function requireScavengeConfirmation(parsed: ParsedScavenge): void {
  if (!parsed.dry_run && !parsed.confirm) {
    throw new EssError(
      "CONFIRMATION_REQUIRED",
      "a real scavenge removes events for good: send confirm: true (or dry_run: true to preview)",
    );
  }
}

/** A job's work on the engine: verify reports bytes, scavenge what its engine counts. */
function jobWork(engine: StorageEngine, parsed: ParsedStartJob, metrics?: ServiceMetrics): JobWork {
  if (parsed.kind === "verify") {
    return {
      kind: "verify",
      dry_run: false,
      run: (report) => {
        // Nothing refuses a verify: it is admitted at once and may wait its turn in the engine.
        report.admitted();
        return countedRun(
          metrics,
          "verify",
          engine.verify((p) =>
            report.progress({ done: p.bytes_checked, total: p.bytes_total, unit: "bytes" }),
          ),
        );
      },
    };
  }
  return {
    kind: "scavenge",
    dry_run: parsed.dry_run,
    run: (report) =>
      countedRun(
        metrics,
        "scavenge",
        engine.scavenge({
          dry_run: parsed.dry_run,
          onAdmitted: report.admitted,
          onProgress: report.progress,
        }),
      ),
  };
}

export interface ServiceOperations extends Operations {
  /** Refuses new calls with UNAVAILABLE from now on; resolves once the calls in flight are done. */
  drain(): Promise<void>;
  /**
   * A bearer token for an existing user, without its password: for the service's own use only
   * (the KurrentDB listener's anonymous user, src/kurrent/credentials.ts), never for a request's
   * input. USER_NOT_FOUND when the user does not exist.
   */
  issueTokenFor(username: string): Promise<LoginResult>;
}

// long: a table, long only by its count: one short entry per operation (authenticate, parse,
// role, tenant, then the engine), kept together so every rule of every operation is read in one
// place.
export function createOperations(deps: OperationsDeps): ServiceOperations {
  const { engine, users, tokens, authenticator, logger, metrics } = deps;
  const now = deps.now ?? Date.now;
  const slowOperationMs = deps.slowOperationMs ?? 1000;
  const loginThrottle = deps.loginThrottle ?? new LoginThrottle({ now });
  const jobs = deps.jobs ?? new JobRegistry({ logger, now });
  const { run, drain } = createCallRunner({ logger, metrics, slowOperationMs });
  const loginDesk = createLoginDesk({ users, tokens, loginThrottle, logger, metrics, now });

  return {
    drain,

    async issueTokenFor(username: string): Promise<LoginResult> {
      const user = await users.get(username);
      if (!user) throw new EssError("USER_NOT_FOUND", `user '${username}' does not exist`, { username });
      return loginDesk.resultFor(user);
    },

    authenticate: (ctx) => run("authenticate", ctx, () => authenticator.authenticate(ctx)),

    refused: (ctx, operation, code) => metrics?.refused(ctx, operation, code),

    check: (ctx) =>
      run("check", ctx ?? null, () => {
        const writable = engine.isWritable();
        return Promise.resolve({
          status: writable && !engine.isDamaged() ? "ok" : "degraded",
          version: serviceVersion,
          uptime_seconds: Math.max(0, Math.floor((now() - deps.startedAt) / 1000)),
          storage: { engine: engine.kind, writable },
        });
      }),

    login: (ctx, request) => run("login", ctx, () => loginDesk.login(ctx, request)),

    append: (ctx, request) =>
      run("append", ctx, async () => {
        const caller = await authenticator.authenticate(ctx);
        const parsed = parseAppendRequest(request);
        requireRole(caller, "writer");
        const tenantId = resolveTenant(caller, parsed.tenant);
        let idsFresh = true;
        const result = await engine.append({
          tenant_id: tenantId,
          stream_id: parsed.stream_id,
          // The payloads are checked (parseAppendRequest): the engine takes them as they are.
          events: parsed.events.map((e) => {
            if (e.event_id !== undefined) idsFresh = false;
            return {
              event_id: e.event_id ?? randomUUID(),
              event_type: e.event_type,
              data: e.data,
              metadata: e.metadata,
            };
          }),
          expected_revision: parsed.expected_revision,
          // Ids made here cannot repeat one in the stream (a repeat needs the client's own id).
          ...(idsFresh ? { event_ids_fresh: true } : {}),
        });
        if (metrics !== undefined) {
          let bytes = 0;
          for (const e of parsed.events) bytes += e.data.byteLength + e.metadata.byteLength;
          metrics.appended(parsed.events.length, bytes);
        }
        return result;
      }),

    read: (ctx, request) =>
      run("read", ctx, async () => {
        const caller = await authenticator.authenticate(ctx);
        const parsed = parseReadRequest(request);
        requireRole(caller, "reader");
        const page = await engine.readStream({
          tenant_id: resolveTenant(caller, parsed.tenant),
          stream_id: parsed.stream_id,
          direction: parsed.direction,
          from_revision: parsed.from,
          limit: parsed.limit,
          bytes_max: limits.readPageBytesMax,
          stored_bytes: true,
        });
        metrics?.served(page.events.length);
        return page;
      }),

    getInfo: (ctx, request) =>
      run("getInfo", ctx, async () => {
        const caller = await authenticator.authenticate(ctx);
        const parsed = parseStreamRequest(request);
        requireRole(caller, "reader");
        const info = await engine.getStreamInfo(resolveTenant(caller, parsed.tenant), parsed.stream_id);
        if (!info) throw streamNotFound(parsed.stream_id);
        return info;
      }),

    list: (ctx, request) =>
      run("list", ctx, async () => {
        const caller = await authenticator.authenticate(ctx);
        const parsed = parseListStreamsRequest(request);
        requireRole(caller, "reader");
        return engine.listStreams({
          tenant_id: resolveTenant(caller, parsed.tenant),
          prefix: parsed.prefix,
          limit: parsed.limit,
          cursor: parsed.cursor,
        });
      }),

    readAll: (ctx, request) =>
      run("readAll", ctx, async () => {
        const caller = await authenticator.authenticate(ctx);
        const parsed = parseReadAllRequest(request);
        requireRole(caller, "reader");
        const page = await engine.readAll({
          tenant_id: resolveTenant(caller, parsed.tenant),
          direction: parsed.direction,
          from_position: parsed.from_position,
          limit: parsed.limit,
          filter: parsed.filter,
          bytes_max: limits.readPageBytesMax,
          stored_bytes: true,
        });
        metrics?.served(page.events.length);
        // The contract's fields only (the engine's page has more: resume_position).
        return { events: page.events, next_position: page.next_position, is_end: page.is_end };
      }),

    setRetention: (ctx, request) =>
      run("setRetention", ctx, async () => {
        const caller = await authenticator.authenticate(ctx);
        const parsed = parseSetRetentionRequest(request);
        requireRole(caller, "writer");
        return engine.setRetention(resolveTenant(caller, parsed.tenant), parsed.stream_id, parsed.retention);
      }),

    delete: (ctx, request) =>
      run("delete", ctx, async () => {
        const caller = await authenticator.authenticate(ctx);
        const parsed = parseDeleteRequest(request);
        requireRole(caller, "writer");
        return engine.deleteStream(resolveTenant(caller, parsed.tenant), parsed.stream_id, {
          expected_revision: parsed.expected_revision,
          tombstone: parsed.tombstone,
        });
      }),

    getMetadata: (ctx, request) =>
      run("getMetadata", ctx, async () => {
        const caller = await authenticator.authenticate(ctx);
        const parsed = parseStreamRequest(request);
        requireRole(caller, "reader");
        return engine.getStreamMetadata(resolveTenant(caller, parsed.tenant), parsed.stream_id);
      }),

    setMetadata: (ctx, request) =>
      run("setMetadata", ctx, async () => {
        const caller = await authenticator.authenticate(ctx);
        const parsed = parseSetMetadataRequest(request);
        requireRole(caller, "writer");
        return engine.setStreamMetadata({
          tenant_id: resolveTenant(caller, parsed.tenant),
          stream_id: parsed.stream_id,
          metadata: parsed.metadata,
          expected_metadata_revision: parsed.expected_metadata_revision,
        });
      }),

    listStreams: (ctx, request) =>
      run("listStreams", ctx, async () => {
        const caller = await authenticator.authenticate(ctx);
        const parsed = parseListStreamsRequest(request);
        requireRole(caller, "admin");
        return engine.listStreams({
          tenant_id: parsed.tenant,
          prefix: parsed.prefix,
          limit: parsed.limit,
          cursor: parsed.cursor,
        });
      }),

    verify: (ctx) =>
      run("verify", ctx, async () => {
        requireRole(await authenticator.authenticate(ctx), "admin");
        return countedRun(metrics, "verify", engine.verify());
      }),

    getStorageStatus: (ctx) =>
      run("getStorageStatus", ctx, async () => {
        requireRole(await authenticator.authenticate(ctx), "admin");
        return engine.status();
      }),

    listTenants: (ctx, request) =>
      run("listTenants", ctx, async () => {
        requireRole(await authenticator.authenticate(ctx), "admin");
        const parsed = parsePageRequest(request);
        return engine.listTenants(parsed);
      }),

    getTenant: (ctx, request) =>
      run("getTenant", ctx, async () => {
        requireRole(await authenticator.authenticate(ctx), "admin");
        const { tenant_id } = parseTenantRequest(request);
        const usage = await engine.getTenantUsage(tenant_id);
        if (!usage) {
          throw new EssError("TENANT_NOT_FOUND", `tenant '${tenant_id}' was not found`, { tenant_id });
        }
        return { ...usage, largest_streams: await engine.largestStreams(tenant_id, largestStreamsCount) };
      }),

    scavenge: (ctx, request) =>
      run("scavenge", ctx, async () => {
        requireRole(await authenticator.authenticate(ctx), "admin");
        const parsed = parseScavengeRequest(request);
        requireScavengeConfirmation(parsed);
        return countedRun(metrics, "scavenge", engine.scavenge({ dry_run: parsed.dry_run }));
      }),

    startJob: (ctx, request) =>
      run("startJob", ctx, async () => {
        requireRole(await authenticator.authenticate(ctx), "admin");
        const parsed = parseStartJobRequest(request);
        if (parsed.kind === "scavenge") requireScavengeConfirmation(parsed);
        return jobs.start(jobWork(engine, parsed, metrics));
      }),

    getJob: (ctx, request) =>
      run("getJob", ctx, async () => {
        requireRole(await authenticator.authenticate(ctx), "admin");
        const { job_id } = parseJobRequest(request);
        const job = jobs.get(job_id);
        if (!job) {
          throw new EssError(
            "JOB_NOT_FOUND",
            `job '${job_id}' was not found: jobs are kept by the process that started them, until a restart`,
            { job_id },
          );
        }
        return job;
      }),

    listJobs: (ctx, request) =>
      run("listJobs", ctx, async () => {
        requireRole(await authenticator.authenticate(ctx), "admin");
        return jobs.list(parsePageRequest(request));
      }),

    createUser: (ctx, request) =>
      run("createUser", ctx, async () => {
        requireRole(await authenticator.authenticate(ctx), "admin");
        const parsed = parseCreateUserRequest(request);
        return users.create(parsed);
      }),

    listUsers: (ctx, request) =>
      run("listUsers", ctx, async () => {
        requireRole(await authenticator.authenticate(ctx), "admin");
        const parsed = parsePageRequest(request);
        return users.list(parsed);
      }),

    deleteUser: (ctx, request) =>
      run("deleteUser", ctx, async () => {
        const caller = await authenticator.authenticate(ctx);
        const { username } = parseUsernameRequest(request);
        requireRole(caller, "admin");
        if (username === caller.username) {
          // Deleting oneself could leave no admin and lock every operator out.
          throw new EssError("INVALID_ARGUMENT", "you cannot delete your own user", { field: "username" });
        }
        return users.delete(username);
      }),
  };
}
