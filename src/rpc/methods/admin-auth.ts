/** The methods of ess.v1.Admin and ess.v1.Auth: each an operation on the generic codec. */
import type { Operations } from "../../operations/contract.js";
import * as convert from "../convert.js";
import type { CreateUserRequest__Output } from "../generated/ess/v1/CreateUserRequest.js";
import type { JobRequest__Output } from "../generated/ess/v1/JobRequest.js";
import type { ListStreamsRequest__Output } from "../generated/ess/v1/ListStreamsRequest.js";
import type { LoginRequest__Output } from "../generated/ess/v1/LoginRequest.js";
import type { PageRequest__Output } from "../generated/ess/v1/PageRequest.js";
import type { ScavengeRequest__Output } from "../generated/ess/v1/ScavengeRequest.js";
import type { StartJobRequest__Output } from "../generated/ess/v1/StartJobRequest.js";
import type { TenantRequest__Output } from "../generated/ess/v1/TenantRequest.js";
import type { UsernameRequest__Output } from "../generated/ess/v1/UsernameRequest.js";
import type { AnyUnaryMethod } from "./method.js";
import { genericUnary } from "./streams.js";

export function adminMethods(ops: Operations): AnyUnaryMethod[] {
  const admin = "ess.v1.Admin";
  return [
    genericUnary(
      admin,
      "ListStreams",
      "authenticated",
      convert.toPbStreamList,
      (ctx, r: ListStreamsRequest__Output) =>
        ops.listStreams(ctx, { tenant: r.tenant, prefix: r.prefix, limit: r.limit, cursor: r.cursor }),
    ),
    genericUnary(admin, "Verify", "authenticated", convert.toPbVerifyResult, (ctx) => ops.verify(ctx)),
    genericUnary(admin, "GetStorageStatus", "authenticated", convert.toPbStorageStatus, (ctx) =>
      ops.getStorageStatus(ctx),
    ),
    genericUnary(
      admin,
      "ListTenants",
      "authenticated",
      convert.toPbTenantList,
      (ctx, r: PageRequest__Output) => ops.listTenants(ctx, { limit: r.limit, cursor: r.cursor }),
    ),
    genericUnary(
      admin,
      "GetTenant",
      "authenticated",
      convert.toPbTenantDetail,
      (ctx, r: TenantRequest__Output) => ops.getTenant(ctx, { tenant_id: r.tenant_id }),
    ),
    genericUnary(
      admin,
      "Scavenge",
      "authenticated",
      convert.toPbScavengeResult,
      (ctx, r: ScavengeRequest__Output) => ops.scavenge(ctx, { dry_run: r.dry_run, confirm: r.confirm }),
    ),
    genericUnary(admin, "StartJob", "authenticated", convert.toPbJob, (ctx, r: StartJobRequest__Output) =>
      ops.startJob(ctx, { kind: r.kind, dry_run: r.dry_run, confirm: r.confirm }),
    ),
    genericUnary(admin, "GetJob", "authenticated", convert.toPbJob, (ctx, r: JobRequest__Output) =>
      ops.getJob(ctx, { job_id: r.job_id }),
    ),
    genericUnary(admin, "ListJobs", "authenticated", convert.toPbJobList, (ctx, r: PageRequest__Output) =>
      ops.listJobs(ctx, { limit: r.limit, cursor: r.cursor }),
    ),
    genericUnary(
      admin,
      "CreateUser",
      "authenticated",
      convert.toPbUser,
      (ctx, r: CreateUserRequest__Output) =>
        ops.createUser(ctx, {
          username: r.username,
          password: r.password,
          tenant_id: r.tenant_id,
          role: r.role,
        }),
    ),
    genericUnary(admin, "ListUsers", "authenticated", convert.toPbUserList, (ctx, r: PageRequest__Output) =>
      ops.listUsers(ctx, { limit: r.limit, cursor: r.cursor }),
    ),
    genericUnary(admin, "DeleteUser", "authenticated", convert.toPbUser, (ctx, r: UsernameRequest__Output) =>
      ops.deleteUser(ctx, { username: r.username }),
    ),
  ];
}

export function authMethods(ops: Operations): AnyUnaryMethod[] {
  const auth = "ess.v1.Auth";
  return [
    // Public: the call that gets a token. Its context carries the client's address, which the
    // login throttle counts.
    genericUnary(auth, "Login", "public", convert.toPbLoginResult, (ctx, r: LoginRequest__Output) =>
      ops.login(ctx, { username: r.username, password: r.password }),
    ),
    genericUnary(auth, "WhoAmI", "authenticated", convert.toPbWhoAmIResult, (ctx) => ops.authenticate(ctx)),
  ];
}
