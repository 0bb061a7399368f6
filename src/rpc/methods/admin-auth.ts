/** The methods of ess.v1.Admin and ess.v1.Auth: each an operation on the generic codec. */
import type * as contract from "../../contract/bodies.js";
import type { Operations } from "../../operations/contract.js";
import * as convert from "../convert.js";
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
      (ctx, r: contract.ListStreamsRequest) => ops.listStreams(ctx, r),
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
      (ctx, r: contract.PageRequest) => ops.listTenants(ctx, r),
    ),
    genericUnary(
      admin,
      "GetTenant",
      "authenticated",
      convert.toPbTenantDetail,
      (ctx, r: contract.TenantRequest) => ops.getTenant(ctx, r),
    ),
    genericUnary(
      admin,
      "Scavenge",
      "authenticated",
      convert.toPbScavengeResult,
      (ctx, r: contract.ScavengeRequest) => ops.scavenge(ctx, r),
    ),
    genericUnary(admin, "StartJob", "authenticated", convert.toPbJob, (ctx, r: contract.StartJobRequest) =>
      ops.startJob(ctx, r),
    ),
    genericUnary(admin, "GetJob", "authenticated", convert.toPbJob, (ctx, r: contract.JobRequest) =>
      ops.getJob(ctx, r),
    ),
    genericUnary(admin, "ListJobs", "authenticated", convert.toPbJobList, (ctx, r: contract.PageRequest) =>
      ops.listJobs(ctx, r),
    ),
    genericUnary(
      admin,
      "CreateUser",
      "authenticated",
      convert.toPbUser,
      (ctx, r: contract.CreateUserRequest) => ops.createUser(ctx, r),
    ),
    genericUnary(admin, "ListUsers", "authenticated", convert.toPbUserList, (ctx, r: contract.PageRequest) =>
      ops.listUsers(ctx, r),
    ),
    genericUnary(admin, "DeleteUser", "authenticated", convert.toPbUser, (ctx, r: contract.UsernameRequest) =>
      ops.deleteUser(ctx, r),
    ),
  ];
}

export function authMethods(ops: Operations): AnyUnaryMethod[] {
  const auth = "ess.v1.Auth";
  return [
    // Public: the call that gets a token. Its context carries the client's address, which the
    // login throttle counts.
    genericUnary(auth, "Login", "public", convert.toPbLoginResult, (ctx, r: contract.LoginRequest) =>
      ops.login(ctx, r),
    ),
    genericUnary(auth, "WhoAmI", "authenticated", convert.toPbWhoAmIResult, (ctx) => ops.authenticate(ctx)),
  ];
}
