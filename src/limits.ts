/**
 * Every bound of the service in one place. Defaults follow docs/contract.md "Limits";
 * the relations between them are asserted at load so an inconsistent change fails at once.
 */
import { assert } from "./errors.js";

const KiB = 1024;
const MiB = 1024 * KiB;

export const limits = {
  /** Bytes of UTF-8 in a stream id or tenant id. */
  idBytesMax: 200,
  /** Bytes of UTF-8 in an event type. */
  eventTypeBytesMax: 200,
  /** Bytes of JSON text of one event (data plus metadata). */
  eventBytesMax: 1 * MiB,
  /**
   * Bytes of a stream's metadata document (its JSON text, UTF-8). The log engine keeps every
   * stream's document resident and in its index files, so it is kept small.
   */
  streamMetadataBytesMax: 64 * KiB,
  /** Events in one append. */
  appendEventsMax: 1000,
  /** Bytes of one append request body (REST) or message (gRPC). */
  appendBodyBytesMax: 4 * MiB,
  /**
   * REST: a body refused as too large is read and discarded up to this many bytes before the 413
   * goes out, so that closing the connection does not reset it before the client reads the answer.
   * A longer body is not read: the 413 is sent and the connection closed at once.
   */
  restDiscardBodyBytesMax: 12 * MiB,
  /** REST: milliseconds the discarding of a too-large body may take before the 413 goes out anyway. */
  restDiscardBodyMs: 10_000,
  /** Largest `limit` of one read or listing page; the default page is readPageDefault. */
  readPageMax: 1000,
  readPageDefault: 100,
  /**
   * Bytes of event data and metadata (UTF-8 JSON) in one read page (Read, ReadAll, a
   * subscription's catch-up page). A page stops before passing it, always holding at least one
   * event, and says where the next one starts; so a page of large events stays readable: its
   * JSON fits a JavaScript string, and its gRPC message, with its framing, the 4 MiB receive limit
   * that gRPC clients have by default.
   */
  readPageBytesMax: 3 * MiB,
  /**
   * Protobuf groups (wire types 3/4) nested inside one another in a request. No ess message has
   * groups, so they are only skipped as unknown fields; the bound keeps a message of nested
   * start-group keys (one byte each) from costing more than this many levels. 100 is protoc's
   * and protobufjs's recursion limit. Embedded messages need no bound of their own: no ess
   * message contains itself, so the hand-written decoders nest no deeper than the .proto, and
   * protobufjs (every other method's decoder) stops at its own limit, no higher than this one
   * (test/rpc/hostile-protobuf.test.ts checks both).
   */
  protobufGroupDepthMax: 100,
  /** Bytes of a username or password. */
  usernameBytesMax: 100,
  passwordBytesMax: 1024,
  /** Shortest password a user may be given, in characters (SERVICE_ADMIN_PASSWORD too). */
  passwordCharsMin: 8,

  /**
   * Login throttle (src/operations/login-throttle.ts): failed logins one username may have
   * before its next login waits. Unknown usernames count the same as known ones.
   */
  loginUsernameFreeFailures: 3,
  /**
   * The same for one client address: higher, since many users can share one (behind NAT, or all
   * of an `ess gateway --upstream`'s clients, which the RPC server sees as the gateway's address).
   */
  loginAddressFreeFailures: 10,
  /** The first wait past the free failures; each further failure doubles it, up to loginBackoffMaxMs. */
  loginBackoffBaseMs: 1_000,
  loginBackoffMaxMs: 300_000,
  /** A username's or address's failures are forgotten this long after its last one. */
  loginFailuresForgetMs: 15 * 60_000,
  /**
   * Entries in each of the throttle's two tables (usernames, addresses), about 200 bytes each;
   * past it the least recently failed entry is dropped, so a flood of random usernames or
   * addresses holds about 4 MB, not memory without bound.
   */
  loginThrottleEntriesMax: 10_000,
  /**
   * Password hashes (scrypt, ~16 MiB and ~70 ms of one core each) running at once, at most.
   * scrypt runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), the
   * pool the log engine's fsyncs and file reads also use; the bound actually used is also at
   * most one fewer than the cores and two fewer than the pool's threads (src/auth/password.ts),
   * so a flood of logins leaves storage threads and a core for the event loop.
   */
  passwordHashesRunningMax: 2,
  /**
   * Password hashes waiting for their turn; past it a login is refused with RATE_LIMITED. Small:
   * each waiting hash is ~70 ms of a core that a burst of guesses would take in a row.
   */
  passwordHashesWaitingMax: 8,
  /**
   * How long a login refused with RATE_LIMITED waits before it is answered (never longer than
   * its Retry-After): a client that ignores Retry-After and asks again at once gets a few answers
   * a second per connection, not thousands, so a login flood costs the service little CPU.
   */
  loginRefusalDelayMs: 250,
  /** Refused logins waiting out that delay at once; past it they are answered at once. */
  loginRefusalsDelayedMax: 1024,

  /** Log engine: bytes of one segment file before it is sealed. Default 64 MiB. */
  segmentBytesMax: 64 * MiB,
  /**
   * Log engine: bytes of one record (one event plus its framing). Must fit a segment,
   * and the largest append (appendBodyBytesMax) must fit a segment as one group.
   */
  recordBytesMax: 1 * MiB + 2 * KiB,
  /** Log engine: appends waiting for the group-commit writer before new ones are refused (UNAVAILABLE). */
  writerQueueAppendsMax: 100_000,
  /** Log engine: bytes gathered into one group-commit write. */
  writerGroupBytesMax: 8 * MiB,
  /** Log engine: bytes of records waiting for the writer before new appends are refused (UNAVAILABLE). */
  writerQueueBytesMax: 64 * MiB,
  /** Log engine: bytes of segment blocks cached for reads (64 KiB blocks). */
  logBlockCacheBytes: 64 * MiB,
  /** Bytes of index-file blocks the log engine caches for reads (sealed segments' indexes). */
  logIndexCacheBytes: 32 * MiB,
  /**
   * Log engine: a group's fdatasync runs on the event loop itself (no thread-pool round trip,
   * two fewer thread wake-ups per group) while the disk's recent fdatasyncs took at most this
   * long; on a slower disk it goes to the thread pool so reads and requests go on meanwhile.
   */
  inlineFsyncMicrosMax: 1_000,
  /**
   * gRPC unary Append on the fast carrier: appends of one connection that arrive together (while
   * other calls are in flight) run in halves, one event-loop turn apart, from this many waiting
   * on (src/rpc/fast-carrier/burst-queue.ts; docs/rpc.md, "Appends that arrive together"). Below
   * it they run whole and share one group commit.
   */
  unaryAppendBurstSplitMin: 8,

  /** PostgreSQL engine: connections in a node's pool, unless SERVICE_POSTGRES_POOL_SIZE sets it. */
  postgresPoolSizeDefault: 10,

  /**
   * Verified bearer tokens remembered so a token's signature is checked once, not per call
   * (expiry and the user's existence are still checked every call). About 300 bytes each.
   */
  verifiedTokensCachedMax: 10_000,

  /**
   * gRPC Streams.AppendSession and ReadSession: requests of one session being processed or
   * answered but not yet written, at once. Past it the server stops reading the session's
   * requests until answers drain (HTTP/2 flow control then holds the client back). Bounds a
   * session's memory to about this many appends or read answers.
   */
  sessionInFlightMax: 1024,
  /**
   * gRPC Streams.ReadSession: bytes of event data and metadata in answers handed to HTTP/2 and
   * not yet written to the socket. Past it the session runs no more of its reads until the
   * client takes answers, so a client that stops reading holds about this much (plus one page)
   * of the server's memory, not sessionInFlightMax pages.
   */
  sessionUnwrittenBytesMax: 16 * MiB,
  /**
   * gRPC Streams.AppendSession: appends one request message may carry (its `append` and its
   * `appends`), and answers one response message carries (`outcomes`). A request message with
   * more ends the session with INVALID_ARGUMENT; the server takes a message's appends together
   * (so a session runs at most sessionInFlightMax plus this many at once). The client joins
   * appends into one message up to this many. Each answer is well under a KiB (a result's
   * numbers, or an error's code, sentence and details), so a message of them stays far below the
   * 4 MiB that gRPC clients take by default (asserted below).
   */
  sessionAppendsPerMessageMax: 256,
  /**
   * gRPC Streams.AppendSession, the client (src/client/sessions.ts): bytes of the appends it joins
   * into one request message. An append that would take a message past it goes into the next
   * one; one larger than it (up to appendBodyBytesMax of payloads) goes alone, as before. Well
   * under gRPC's usual 4 MiB and the server's 8 MiB receive limit: past a few KiB a message's
   * fixed cost is already spread thin, and a smaller message leaves the socket sooner.
   */
  sessionMessageBytesMax: 1 * MiB,

  /**
   * gRPC server: calls (HTTP/2 streams) one client connection may have open at once, sent as
   * SETTINGS_MAX_CONCURRENT_STREAMS. Without it grpc-js and node:http2 allow 2^32-1, and each
   * call can hold a read page (up to readPageBytesMax) or a request message (up to 8 MiB) of
   * the server's memory. 100 is RFC 9113's recommended floor and what Kestrel, h2o and Apache
   * use; it is also what Node's HTTP/2 clients (grpc-js, the benchmark's load client) assume
   * before the server's SETTINGS arrive, so none of their first calls on a connection is refused. A client
   * past it waits for a call to end (its HTTP/2 stack queues the call); 100 calls in flight is
   * far more than the server runs at once on its cores, so throughput does not suffer.
   * Long-lived calls (Subscribe, sessions, health Watch) count too.
   */
  rpcConnectionStreamsMax: 100,
  /**
   * gRPC server: bytes of one connection's unary Read and ReadAll answers (their events' data
   * and metadata, as sessionUnwrittenBytesMax weighs them) not yet written to the socket, with a
   * full page (readPageBytesMax) counted for each read still running, whose size is not known
   * yet. Past it the connection's further reads wait, in arrival order, until answers are
   * written. So a client that sends reads and takes no answers holds about this much plus a page
   * of the server's memory, not rpcConnectionStreamsMax pages (up to ~360 MB); a client that
   * reads its answers waits for it only when the socket cannot keep up with the answers.
   * 64 MiB, not the sessions' 16: each running read counts a whole page, so the budget is also
   * how many reads of one connection run at once against an engine that answers asynchronously
   * (PostgreSQL): 22 here, more than the default pool of postgresPoolSizeDefault connections,
   * so the pool sets that pace for one busy client (the REST gateway's upstream, say), not this.
   */
  rpcConnectionUnwrittenReadBytesMax: 64 * MiB,

  /**
   * The gRPC client (src/client/, and the benchmark's load generator): bytes of one answer message it takes.
   * The largest answer this service sends is a read page: its payloads stay within
   * readPageBytesMax and each of its readPageMax events adds well under a KiB of ids, type and
   * numbers (asserted below), so about 4 MiB; admin answers are smaller (verify reports at most
   * 1,000 errors). A larger length prefix is a broken or hostile server, and the call fails
   * before the client buffers it.
   */
  rpcClientAnswerBytesMax: 16 * MiB,
  /**
   * The gRPC client: the longest wait, in milliseconds, before it tries again to connect to a
   * server it lost (grpc-js waits 1 s, then up to 120 s by default, and fails calls at once in the
   * meantime). Short, so that `ess gateway --upstream` answers again within about a second of its
   * upstream coming back; each try is one TCP connect.
   */
  rpcClientReconnectBackoffMsMax: 1_000,

  /** WebSocket / gRPC subscriptions: bytes queued to one client before its subscription pauses. */
  subscriberBufferBytesMax: 1 * MiB,
  /** Milliseconds a subscriber may stay stalled (buffer full) before it is disconnected. */
  subscriberStallMsMax: 30_000,
  /**
   * A `$all` read (ReadAll, a `$all` subscription's page) skips at most this many of the tenant's
   * events per page: events its filter does not match, or that retention or soft delete hide.
   * Past it the page ends, with fewer events than its limit (even none) and next_position just
   * past the last event looked at: one page costs at most limit + this many events scanned, so
   * sparse matches never hold a request for long.
   */
  readAllSkipMax: 10_000,
  /** A `$all` filter: prefixes in each of its lists (stream_prefix, event_type_prefix). */
  filterPrefixesMax: 100,
  /** A `$all` filter: characters of a regular expression (stream_regex, event_type_regex). */
  filterRegexCharsMax: 1_000,
  /**
   * A filtered `$all` subscription sends a checkpoint (its position) when this many of the
   * tenant's events were passed over without one being sent since the last event or checkpoint
   * it sent, and whenever a page it read ended with nothing to send.
   */
  subscriptionCheckpointSkipped: 1_000,
  /** Events one subscription reads from storage per page (catch-up and after each wake-up). */
  subscriptionPageEvents: 100,
  /** Subscriptions one WebSocket connection may hold at once. */
  subscriptionsPerConnectionMax: 100,
  /** Bytes of one client WebSocket message (subscribe, unsubscribe, auth are small). */
  wsMessageBytesMax: 64 * KiB,
  /** Milliseconds a WebSocket client has to authenticate after connecting. */
  wsAuthTimeoutMs: 10_000,
  /** Milliseconds between WebSocket pings; a peer that misses one pong is dropped. */
  wsPingIntervalMs: 30_000,

  /**
   * Streams a scavenge dry run lists (`streams` of its result), largest first; streams_affected
   * still counts them all. At most a few hundred bytes each, so a result stays well under 1 MiB.
   */
  scavengeStreamsListedMax: 1000,
  /**
   * Jobs (src/operations/jobs.ts) kept once finished, per process; past it the one that finished
   * longest ago is forgotten (GET /v1/admin/jobs/{id} then answers JOB_NOT_FOUND).
   */
  jobsFinishedMax: 100,
  /**
   * Jobs queued or running at once, per process; another is refused with RATE_LIMITED until one
   * finishes. Each holds a full pass over storage (the log engine runs them one at a time, the
   * postgres engine at once, each a scan of the events table).
   */
  jobsUnfinishedMax: 8,
  /**
   * Bytes of job results (an estimate of their JSON) in one page of Admin.ListJobs: a page stops
   * before passing it, always holding at least one job, and gives a next_cursor. One result is at
   * most about jobResultBytesMax (1,000 verify errors or 1,000 listed streams).
   */
  jobListPageBytesMax: 4 * MiB,
  jobResultBytesMax: 1 * MiB,

  /**
   * KurrentDB listener (src/kurrent): how long a token obtained with Basic credentials is reused
   * for the same header before the password is checked again, and how many such headers are
   * remembered (past it the oldest is forgotten).
   */
  kurrentBasicCacheMs: 60_000,
  kurrentBasicCacheEntriesMax: 1000,
  /**
   * Events the listener reads from storage per page while it serves a KurrentDB read (whose count
   * may be up to 2^53-1) or a subscription's history; each page is one ess read.
   */
  kurrentReadPageEvents: 500,
  /** Batches one BatchAppend call may hold open (first message seen, final one not yet). */
  kurrentBatchesOpenMax: 100,
} as const;

assert(limits.recordBytesMax <= limits.segmentBytesMax, "a record fits in a segment");
assert(limits.eventBytesMax < limits.recordBytesMax, "an event fits in a record");
assert(limits.streamMetadataBytesMax * 2 < limits.recordBytesMax, "a metadata document fits in a record");
assert(limits.appendBodyBytesMax <= limits.writerGroupBytesMax, "an append fits in one group write");
assert(
  limits.restDiscardBodyBytesMax > limits.appendBodyBytesMax,
  "a body just over the limit is read before its 413",
);
assert(limits.writerGroupBytesMax <= limits.segmentBytesMax, "a group write fits in a segment");
assert(limits.writerGroupBytesMax <= limits.writerQueueBytesMax, "the writer queue holds at least one group");
assert(
  limits.readPageBytesMax + limits.readPageMax * (2 * limits.idBytesMax + limits.eventTypeBytesMax + 256) <=
    limits.rpcClientAnswerBytesMax,
  "the client takes the largest read page (payloads, ids, type, event id, numbers and framing)",
);
assert(
  limits.sessionAppendsPerMessageMax >= 1 && limits.sessionAppendsPerMessageMax <= limits.sessionInFlightMax,
  "a session takes a whole message of appends",
);
assert(
  limits.sessionMessageBytesMax <= limits.appendBodyBytesMax,
  "a joined message is no larger than one append may be (within gRPC's 4 MiB)",
);
assert(
  limits.sessionAppendsPerMessageMax * 2 * (limits.idBytesMax + 1024) <= 4 * MiB,
  "a message of append answers (ids and an error sentence each) fits gRPC's default 4 MiB",
);
assert(limits.passwordHashesRunningMax >= 1, "logins can be checked");
assert(limits.loginBackoffBaseMs <= limits.loginBackoffMaxMs, "the first back-off is within the longest");
assert(
  limits.loginBackoffMaxMs <= limits.loginFailuresForgetMs,
  "a blocked username or address is not forgotten while it waits",
);
assert(
  limits.jobListPageBytesMax + limits.jobResultBytesMax <= limits.rpcClientAnswerBytesMax,
  "the client takes the largest page of jobs",
);
assert(limits.readPageDefault <= limits.readPageMax, "the default page is within the maximum");
assert(limits.subscriptionPageEvents <= limits.readPageMax, "a subscription page is a valid read page");
assert(limits.eventBytesMax <= limits.readPageBytesMax, "a page holds at least any one event");
assert(
  limits.readPageBytesMax <= limits.rpcConnectionUnwrittenReadBytesMax,
  "a connection can have a read of a full page running",
);
assert(
  limits.rpcConnectionStreamsMax >= 100,
  "Node's HTTP/2 clients open up to 100 streams before the server's SETTINGS arrive",
);
