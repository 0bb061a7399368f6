// Original file: proto/ess/v1/admin.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CreateUserRequest as _ess_v1_CreateUserRequest, CreateUserRequest__Output as _ess_v1_CreateUserRequest__Output } from '../../ess/v1/CreateUserRequest.js';
import type { GetStorageStatusRequest as _ess_v1_GetStorageStatusRequest, GetStorageStatusRequest__Output as _ess_v1_GetStorageStatusRequest__Output } from '../../ess/v1/GetStorageStatusRequest.js';
import type { Job as _ess_v1_Job, Job__Output as _ess_v1_Job__Output } from '../../ess/v1/Job.js';
import type { JobList as _ess_v1_JobList, JobList__Output as _ess_v1_JobList__Output } from '../../ess/v1/JobList.js';
import type { JobRequest as _ess_v1_JobRequest, JobRequest__Output as _ess_v1_JobRequest__Output } from '../../ess/v1/JobRequest.js';
import type { ListStreamsRequest as _ess_v1_ListStreamsRequest, ListStreamsRequest__Output as _ess_v1_ListStreamsRequest__Output } from '../../ess/v1/ListStreamsRequest.js';
import type { PageRequest as _ess_v1_PageRequest, PageRequest__Output as _ess_v1_PageRequest__Output } from '../../ess/v1/PageRequest.js';
import type { ScavengeRequest as _ess_v1_ScavengeRequest, ScavengeRequest__Output as _ess_v1_ScavengeRequest__Output } from '../../ess/v1/ScavengeRequest.js';
import type { ScavengeResult as _ess_v1_ScavengeResult, ScavengeResult__Output as _ess_v1_ScavengeResult__Output } from '../../ess/v1/ScavengeResult.js';
import type { StartJobRequest as _ess_v1_StartJobRequest, StartJobRequest__Output as _ess_v1_StartJobRequest__Output } from '../../ess/v1/StartJobRequest.js';
import type { StorageStatus as _ess_v1_StorageStatus, StorageStatus__Output as _ess_v1_StorageStatus__Output } from '../../ess/v1/StorageStatus.js';
import type { StreamList as _ess_v1_StreamList, StreamList__Output as _ess_v1_StreamList__Output } from '../../ess/v1/StreamList.js';
import type { TenantDetail as _ess_v1_TenantDetail, TenantDetail__Output as _ess_v1_TenantDetail__Output } from '../../ess/v1/TenantDetail.js';
import type { TenantList as _ess_v1_TenantList, TenantList__Output as _ess_v1_TenantList__Output } from '../../ess/v1/TenantList.js';
import type { TenantRequest as _ess_v1_TenantRequest, TenantRequest__Output as _ess_v1_TenantRequest__Output } from '../../ess/v1/TenantRequest.js';
import type { User as _ess_v1_User, User__Output as _ess_v1_User__Output } from '../../ess/v1/User.js';
import type { UserList as _ess_v1_UserList, UserList__Output as _ess_v1_UserList__Output } from '../../ess/v1/UserList.js';
import type { UsernameRequest as _ess_v1_UsernameRequest, UsernameRequest__Output as _ess_v1_UsernameRequest__Output } from '../../ess/v1/UsernameRequest.js';
import type { VerifyRequest as _ess_v1_VerifyRequest, VerifyRequest__Output as _ess_v1_VerifyRequest__Output } from '../../ess/v1/VerifyRequest.js';
import type { VerifyResult as _ess_v1_VerifyResult, VerifyResult__Output as _ess_v1_VerifyResult__Output } from '../../ess/v1/VerifyResult.js';

export interface AdminClient extends grpc.Client {
  CreateUser(argument: _ess_v1_CreateUserRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  CreateUser(argument: _ess_v1_CreateUserRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  CreateUser(argument: _ess_v1_CreateUserRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  CreateUser(argument: _ess_v1_CreateUserRequest, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  createUser(argument: _ess_v1_CreateUserRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  createUser(argument: _ess_v1_CreateUserRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  createUser(argument: _ess_v1_CreateUserRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  createUser(argument: _ess_v1_CreateUserRequest, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  
  DeleteUser(argument: _ess_v1_UsernameRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  DeleteUser(argument: _ess_v1_UsernameRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  DeleteUser(argument: _ess_v1_UsernameRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  DeleteUser(argument: _ess_v1_UsernameRequest, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  deleteUser(argument: _ess_v1_UsernameRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  deleteUser(argument: _ess_v1_UsernameRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  deleteUser(argument: _ess_v1_UsernameRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  deleteUser(argument: _ess_v1_UsernameRequest, callback: grpc.requestCallback<_ess_v1_User__Output>): grpc.ClientUnaryCall;
  
  GetJob(argument: _ess_v1_JobRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  GetJob(argument: _ess_v1_JobRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  GetJob(argument: _ess_v1_JobRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  GetJob(argument: _ess_v1_JobRequest, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  getJob(argument: _ess_v1_JobRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  getJob(argument: _ess_v1_JobRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  getJob(argument: _ess_v1_JobRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  getJob(argument: _ess_v1_JobRequest, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  
  GetStorageStatus(argument: _ess_v1_GetStorageStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StorageStatus__Output>): grpc.ClientUnaryCall;
  GetStorageStatus(argument: _ess_v1_GetStorageStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StorageStatus__Output>): grpc.ClientUnaryCall;
  GetStorageStatus(argument: _ess_v1_GetStorageStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StorageStatus__Output>): grpc.ClientUnaryCall;
  GetStorageStatus(argument: _ess_v1_GetStorageStatusRequest, callback: grpc.requestCallback<_ess_v1_StorageStatus__Output>): grpc.ClientUnaryCall;
  getStorageStatus(argument: _ess_v1_GetStorageStatusRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StorageStatus__Output>): grpc.ClientUnaryCall;
  getStorageStatus(argument: _ess_v1_GetStorageStatusRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StorageStatus__Output>): grpc.ClientUnaryCall;
  getStorageStatus(argument: _ess_v1_GetStorageStatusRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StorageStatus__Output>): grpc.ClientUnaryCall;
  getStorageStatus(argument: _ess_v1_GetStorageStatusRequest, callback: grpc.requestCallback<_ess_v1_StorageStatus__Output>): grpc.ClientUnaryCall;
  
  GetTenant(argument: _ess_v1_TenantRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_TenantDetail__Output>): grpc.ClientUnaryCall;
  GetTenant(argument: _ess_v1_TenantRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_TenantDetail__Output>): grpc.ClientUnaryCall;
  GetTenant(argument: _ess_v1_TenantRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_TenantDetail__Output>): grpc.ClientUnaryCall;
  GetTenant(argument: _ess_v1_TenantRequest, callback: grpc.requestCallback<_ess_v1_TenantDetail__Output>): grpc.ClientUnaryCall;
  getTenant(argument: _ess_v1_TenantRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_TenantDetail__Output>): grpc.ClientUnaryCall;
  getTenant(argument: _ess_v1_TenantRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_TenantDetail__Output>): grpc.ClientUnaryCall;
  getTenant(argument: _ess_v1_TenantRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_TenantDetail__Output>): grpc.ClientUnaryCall;
  getTenant(argument: _ess_v1_TenantRequest, callback: grpc.requestCallback<_ess_v1_TenantDetail__Output>): grpc.ClientUnaryCall;
  
  ListJobs(argument: _ess_v1_PageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_JobList__Output>): grpc.ClientUnaryCall;
  ListJobs(argument: _ess_v1_PageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_JobList__Output>): grpc.ClientUnaryCall;
  ListJobs(argument: _ess_v1_PageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_JobList__Output>): grpc.ClientUnaryCall;
  ListJobs(argument: _ess_v1_PageRequest, callback: grpc.requestCallback<_ess_v1_JobList__Output>): grpc.ClientUnaryCall;
  listJobs(argument: _ess_v1_PageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_JobList__Output>): grpc.ClientUnaryCall;
  listJobs(argument: _ess_v1_PageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_JobList__Output>): grpc.ClientUnaryCall;
  listJobs(argument: _ess_v1_PageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_JobList__Output>): grpc.ClientUnaryCall;
  listJobs(argument: _ess_v1_PageRequest, callback: grpc.requestCallback<_ess_v1_JobList__Output>): grpc.ClientUnaryCall;
  
  ListStreams(argument: _ess_v1_ListStreamsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  ListStreams(argument: _ess_v1_ListStreamsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  ListStreams(argument: _ess_v1_ListStreamsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  ListStreams(argument: _ess_v1_ListStreamsRequest, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  listStreams(argument: _ess_v1_ListStreamsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  listStreams(argument: _ess_v1_ListStreamsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  listStreams(argument: _ess_v1_ListStreamsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  listStreams(argument: _ess_v1_ListStreamsRequest, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  
  ListTenants(argument: _ess_v1_PageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_TenantList__Output>): grpc.ClientUnaryCall;
  ListTenants(argument: _ess_v1_PageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_TenantList__Output>): grpc.ClientUnaryCall;
  ListTenants(argument: _ess_v1_PageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_TenantList__Output>): grpc.ClientUnaryCall;
  ListTenants(argument: _ess_v1_PageRequest, callback: grpc.requestCallback<_ess_v1_TenantList__Output>): grpc.ClientUnaryCall;
  listTenants(argument: _ess_v1_PageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_TenantList__Output>): grpc.ClientUnaryCall;
  listTenants(argument: _ess_v1_PageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_TenantList__Output>): grpc.ClientUnaryCall;
  listTenants(argument: _ess_v1_PageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_TenantList__Output>): grpc.ClientUnaryCall;
  listTenants(argument: _ess_v1_PageRequest, callback: grpc.requestCallback<_ess_v1_TenantList__Output>): grpc.ClientUnaryCall;
  
  ListUsers(argument: _ess_v1_PageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_UserList__Output>): grpc.ClientUnaryCall;
  ListUsers(argument: _ess_v1_PageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_UserList__Output>): grpc.ClientUnaryCall;
  ListUsers(argument: _ess_v1_PageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_UserList__Output>): grpc.ClientUnaryCall;
  ListUsers(argument: _ess_v1_PageRequest, callback: grpc.requestCallback<_ess_v1_UserList__Output>): grpc.ClientUnaryCall;
  listUsers(argument: _ess_v1_PageRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_UserList__Output>): grpc.ClientUnaryCall;
  listUsers(argument: _ess_v1_PageRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_UserList__Output>): grpc.ClientUnaryCall;
  listUsers(argument: _ess_v1_PageRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_UserList__Output>): grpc.ClientUnaryCall;
  listUsers(argument: _ess_v1_PageRequest, callback: grpc.requestCallback<_ess_v1_UserList__Output>): grpc.ClientUnaryCall;
  
  Scavenge(argument: _ess_v1_ScavengeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_ScavengeResult__Output>): grpc.ClientUnaryCall;
  Scavenge(argument: _ess_v1_ScavengeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_ScavengeResult__Output>): grpc.ClientUnaryCall;
  Scavenge(argument: _ess_v1_ScavengeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_ScavengeResult__Output>): grpc.ClientUnaryCall;
  Scavenge(argument: _ess_v1_ScavengeRequest, callback: grpc.requestCallback<_ess_v1_ScavengeResult__Output>): grpc.ClientUnaryCall;
  scavenge(argument: _ess_v1_ScavengeRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_ScavengeResult__Output>): grpc.ClientUnaryCall;
  scavenge(argument: _ess_v1_ScavengeRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_ScavengeResult__Output>): grpc.ClientUnaryCall;
  scavenge(argument: _ess_v1_ScavengeRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_ScavengeResult__Output>): grpc.ClientUnaryCall;
  scavenge(argument: _ess_v1_ScavengeRequest, callback: grpc.requestCallback<_ess_v1_ScavengeResult__Output>): grpc.ClientUnaryCall;
  
  StartJob(argument: _ess_v1_StartJobRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  StartJob(argument: _ess_v1_StartJobRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  StartJob(argument: _ess_v1_StartJobRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  StartJob(argument: _ess_v1_StartJobRequest, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  startJob(argument: _ess_v1_StartJobRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  startJob(argument: _ess_v1_StartJobRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  startJob(argument: _ess_v1_StartJobRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  startJob(argument: _ess_v1_StartJobRequest, callback: grpc.requestCallback<_ess_v1_Job__Output>): grpc.ClientUnaryCall;
  
  Verify(argument: _ess_v1_VerifyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_VerifyResult__Output>): grpc.ClientUnaryCall;
  Verify(argument: _ess_v1_VerifyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_VerifyResult__Output>): grpc.ClientUnaryCall;
  Verify(argument: _ess_v1_VerifyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_VerifyResult__Output>): grpc.ClientUnaryCall;
  Verify(argument: _ess_v1_VerifyRequest, callback: grpc.requestCallback<_ess_v1_VerifyResult__Output>): grpc.ClientUnaryCall;
  verify(argument: _ess_v1_VerifyRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_VerifyResult__Output>): grpc.ClientUnaryCall;
  verify(argument: _ess_v1_VerifyRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_VerifyResult__Output>): grpc.ClientUnaryCall;
  verify(argument: _ess_v1_VerifyRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_VerifyResult__Output>): grpc.ClientUnaryCall;
  verify(argument: _ess_v1_VerifyRequest, callback: grpc.requestCallback<_ess_v1_VerifyResult__Output>): grpc.ClientUnaryCall;
  
}

export interface AdminHandlers extends grpc.UntypedServiceImplementation {
  CreateUser: grpc.handleUnaryCall<_ess_v1_CreateUserRequest__Output, _ess_v1_User>;
  
  DeleteUser: grpc.handleUnaryCall<_ess_v1_UsernameRequest__Output, _ess_v1_User>;
  
  GetJob: grpc.handleUnaryCall<_ess_v1_JobRequest__Output, _ess_v1_Job>;
  
  GetStorageStatus: grpc.handleUnaryCall<_ess_v1_GetStorageStatusRequest__Output, _ess_v1_StorageStatus>;
  
  GetTenant: grpc.handleUnaryCall<_ess_v1_TenantRequest__Output, _ess_v1_TenantDetail>;
  
  ListJobs: grpc.handleUnaryCall<_ess_v1_PageRequest__Output, _ess_v1_JobList>;
  
  ListStreams: grpc.handleUnaryCall<_ess_v1_ListStreamsRequest__Output, _ess_v1_StreamList>;
  
  ListTenants: grpc.handleUnaryCall<_ess_v1_PageRequest__Output, _ess_v1_TenantList>;
  
  ListUsers: grpc.handleUnaryCall<_ess_v1_PageRequest__Output, _ess_v1_UserList>;
  
  Scavenge: grpc.handleUnaryCall<_ess_v1_ScavengeRequest__Output, _ess_v1_ScavengeResult>;
  
  StartJob: grpc.handleUnaryCall<_ess_v1_StartJobRequest__Output, _ess_v1_Job>;
  
  Verify: grpc.handleUnaryCall<_ess_v1_VerifyRequest__Output, _ess_v1_VerifyResult>;
  
}

export interface AdminDefinition extends grpc.ServiceDefinition {
  CreateUser: MethodDefinition<_ess_v1_CreateUserRequest, _ess_v1_User, _ess_v1_CreateUserRequest__Output, _ess_v1_User__Output>
  DeleteUser: MethodDefinition<_ess_v1_UsernameRequest, _ess_v1_User, _ess_v1_UsernameRequest__Output, _ess_v1_User__Output>
  GetJob: MethodDefinition<_ess_v1_JobRequest, _ess_v1_Job, _ess_v1_JobRequest__Output, _ess_v1_Job__Output>
  GetStorageStatus: MethodDefinition<_ess_v1_GetStorageStatusRequest, _ess_v1_StorageStatus, _ess_v1_GetStorageStatusRequest__Output, _ess_v1_StorageStatus__Output>
  GetTenant: MethodDefinition<_ess_v1_TenantRequest, _ess_v1_TenantDetail, _ess_v1_TenantRequest__Output, _ess_v1_TenantDetail__Output>
  ListJobs: MethodDefinition<_ess_v1_PageRequest, _ess_v1_JobList, _ess_v1_PageRequest__Output, _ess_v1_JobList__Output>
  ListStreams: MethodDefinition<_ess_v1_ListStreamsRequest, _ess_v1_StreamList, _ess_v1_ListStreamsRequest__Output, _ess_v1_StreamList__Output>
  ListTenants: MethodDefinition<_ess_v1_PageRequest, _ess_v1_TenantList, _ess_v1_PageRequest__Output, _ess_v1_TenantList__Output>
  ListUsers: MethodDefinition<_ess_v1_PageRequest, _ess_v1_UserList, _ess_v1_PageRequest__Output, _ess_v1_UserList__Output>
  Scavenge: MethodDefinition<_ess_v1_ScavengeRequest, _ess_v1_ScavengeResult, _ess_v1_ScavengeRequest__Output, _ess_v1_ScavengeResult__Output>
  StartJob: MethodDefinition<_ess_v1_StartJobRequest, _ess_v1_Job, _ess_v1_StartJobRequest__Output, _ess_v1_Job__Output>
  Verify: MethodDefinition<_ess_v1_VerifyRequest, _ess_v1_VerifyResult, _ess_v1_VerifyRequest__Output, _ess_v1_VerifyResult__Output>
}
