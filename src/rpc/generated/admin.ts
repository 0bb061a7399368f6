import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AdminClient as _ess_v1_AdminClient, AdminDefinition as _ess_v1_AdminDefinition } from './ess/v1/Admin.js';
import type { AppendRequest as _ess_v1_AppendRequest, AppendRequest__Output as _ess_v1_AppendRequest__Output } from './ess/v1/AppendRequest.js';
import type { AppendResult as _ess_v1_AppendResult, AppendResult__Output as _ess_v1_AppendResult__Output } from './ess/v1/AppendResult.js';
import type { AppendSessionEntry as _ess_v1_AppendSessionEntry, AppendSessionEntry__Output as _ess_v1_AppendSessionEntry__Output } from './ess/v1/AppendSessionEntry.js';
import type { AppendSessionOutcome as _ess_v1_AppendSessionOutcome, AppendSessionOutcome__Output as _ess_v1_AppendSessionOutcome__Output } from './ess/v1/AppendSessionOutcome.js';
import type { AppendSessionRequest as _ess_v1_AppendSessionRequest, AppendSessionRequest__Output as _ess_v1_AppendSessionRequest__Output } from './ess/v1/AppendSessionRequest.js';
import type { AppendSessionResponse as _ess_v1_AppendSessionResponse, AppendSessionResponse__Output as _ess_v1_AppendSessionResponse__Output } from './ess/v1/AppendSessionResponse.js';
import type { CaughtUp as _ess_v1_CaughtUp, CaughtUp__Output as _ess_v1_CaughtUp__Output } from './ess/v1/CaughtUp.js';
import type { Checkpoint as _ess_v1_Checkpoint, Checkpoint__Output as _ess_v1_Checkpoint__Output } from './ess/v1/Checkpoint.js';
import type { CreateUserRequest as _ess_v1_CreateUserRequest, CreateUserRequest__Output as _ess_v1_CreateUserRequest__Output } from './ess/v1/CreateUserRequest.js';
import type { DeleteRequest as _ess_v1_DeleteRequest, DeleteRequest__Output as _ess_v1_DeleteRequest__Output } from './ess/v1/DeleteRequest.js';
import type { EventRecord as _ess_v1_EventRecord, EventRecord__Output as _ess_v1_EventRecord__Output } from './ess/v1/EventRecord.js';
import type { EventToAppend as _ess_v1_EventToAppend, EventToAppend__Output as _ess_v1_EventToAppend__Output } from './ess/v1/EventToAppend.js';
import type { GetStorageStatusRequest as _ess_v1_GetStorageStatusRequest, GetStorageStatusRequest__Output as _ess_v1_GetStorageStatusRequest__Output } from './ess/v1/GetStorageStatusRequest.js';
import type { IndexStatus as _ess_v1_IndexStatus, IndexStatus__Output as _ess_v1_IndexStatus__Output } from './ess/v1/IndexStatus.js';
import type { Job as _ess_v1_Job, Job__Output as _ess_v1_Job__Output } from './ess/v1/Job.js';
import type { JobError as _ess_v1_JobError, JobError__Output as _ess_v1_JobError__Output } from './ess/v1/JobError.js';
import type { JobList as _ess_v1_JobList, JobList__Output as _ess_v1_JobList__Output } from './ess/v1/JobList.js';
import type { JobProgress as _ess_v1_JobProgress, JobProgress__Output as _ess_v1_JobProgress__Output } from './ess/v1/JobProgress.js';
import type { JobRequest as _ess_v1_JobRequest, JobRequest__Output as _ess_v1_JobRequest__Output } from './ess/v1/JobRequest.js';
import type { LastScavenge as _ess_v1_LastScavenge, LastScavenge__Output as _ess_v1_LastScavenge__Output } from './ess/v1/LastScavenge.js';
import type { ListStreamsRequest as _ess_v1_ListStreamsRequest, ListStreamsRequest__Output as _ess_v1_ListStreamsRequest__Output } from './ess/v1/ListStreamsRequest.js';
import type { PageRequest as _ess_v1_PageRequest, PageRequest__Output as _ess_v1_PageRequest__Output } from './ess/v1/PageRequest.js';
import type { PoolStatus as _ess_v1_PoolStatus, PoolStatus__Output as _ess_v1_PoolStatus__Output } from './ess/v1/PoolStatus.js';
import type { ReadAllRequest as _ess_v1_ReadAllRequest, ReadAllRequest__Output as _ess_v1_ReadAllRequest__Output } from './ess/v1/ReadAllRequest.js';
import type { ReadAllResult as _ess_v1_ReadAllResult, ReadAllResult__Output as _ess_v1_ReadAllResult__Output } from './ess/v1/ReadAllResult.js';
import type { ReadRequest as _ess_v1_ReadRequest, ReadRequest__Output as _ess_v1_ReadRequest__Output } from './ess/v1/ReadRequest.js';
import type { ReadResult as _ess_v1_ReadResult, ReadResult__Output as _ess_v1_ReadResult__Output } from './ess/v1/ReadResult.js';
import type { ReadSessionRequest as _ess_v1_ReadSessionRequest, ReadSessionRequest__Output as _ess_v1_ReadSessionRequest__Output } from './ess/v1/ReadSessionRequest.js';
import type { ReadSessionResponse as _ess_v1_ReadSessionResponse, ReadSessionResponse__Output as _ess_v1_ReadSessionResponse__Output } from './ess/v1/ReadSessionResponse.js';
import type { Retention as _ess_v1_Retention, Retention__Output as _ess_v1_Retention__Output } from './ess/v1/Retention.js';
import type { ScavengeRequest as _ess_v1_ScavengeRequest, ScavengeRequest__Output as _ess_v1_ScavengeRequest__Output } from './ess/v1/ScavengeRequest.js';
import type { ScavengeResult as _ess_v1_ScavengeResult, ScavengeResult__Output as _ess_v1_ScavengeResult__Output } from './ess/v1/ScavengeResult.js';
import type { ScavengeStream as _ess_v1_ScavengeStream, ScavengeStream__Output as _ess_v1_ScavengeStream__Output } from './ess/v1/ScavengeStream.js';
import type { SegmentStatus as _ess_v1_SegmentStatus, SegmentStatus__Output as _ess_v1_SegmentStatus__Output } from './ess/v1/SegmentStatus.js';
import type { SessionError as _ess_v1_SessionError, SessionError__Output as _ess_v1_SessionError__Output } from './ess/v1/SessionError.js';
import type { SetMetadataRequest as _ess_v1_SetMetadataRequest, SetMetadataRequest__Output as _ess_v1_SetMetadataRequest__Output } from './ess/v1/SetMetadataRequest.js';
import type { SetRetentionRequest as _ess_v1_SetRetentionRequest, SetRetentionRequest__Output as _ess_v1_SetRetentionRequest__Output } from './ess/v1/SetRetentionRequest.js';
import type { StartJobRequest as _ess_v1_StartJobRequest, StartJobRequest__Output as _ess_v1_StartJobRequest__Output } from './ess/v1/StartJobRequest.js';
import type { StorageStatus as _ess_v1_StorageStatus, StorageStatus__Output as _ess_v1_StorageStatus__Output } from './ess/v1/StorageStatus.js';
import type { StreamInfo as _ess_v1_StreamInfo, StreamInfo__Output as _ess_v1_StreamInfo__Output } from './ess/v1/StreamInfo.js';
import type { StreamList as _ess_v1_StreamList, StreamList__Output as _ess_v1_StreamList__Output } from './ess/v1/StreamList.js';
import type { StreamMetadata as _ess_v1_StreamMetadata, StreamMetadata__Output as _ess_v1_StreamMetadata__Output } from './ess/v1/StreamMetadata.js';
import type { StreamRequest as _ess_v1_StreamRequest, StreamRequest__Output as _ess_v1_StreamRequest__Output } from './ess/v1/StreamRequest.js';
import type { StreamSummary as _ess_v1_StreamSummary, StreamSummary__Output as _ess_v1_StreamSummary__Output } from './ess/v1/StreamSummary.js';
import type { StreamsClient as _ess_v1_StreamsClient, StreamsDefinition as _ess_v1_StreamsDefinition } from './ess/v1/Streams.js';
import type { SubscribeRequest as _ess_v1_SubscribeRequest, SubscribeRequest__Output as _ess_v1_SubscribeRequest__Output } from './ess/v1/SubscribeRequest.js';
import type { SubscribeResponse as _ess_v1_SubscribeResponse, SubscribeResponse__Output as _ess_v1_SubscribeResponse__Output } from './ess/v1/SubscribeResponse.js';
import type { TableStatus as _ess_v1_TableStatus, TableStatus__Output as _ess_v1_TableStatus__Output } from './ess/v1/TableStatus.js';
import type { TenantDetail as _ess_v1_TenantDetail, TenantDetail__Output as _ess_v1_TenantDetail__Output } from './ess/v1/TenantDetail.js';
import type { TenantList as _ess_v1_TenantList, TenantList__Output as _ess_v1_TenantList__Output } from './ess/v1/TenantList.js';
import type { TenantRequest as _ess_v1_TenantRequest, TenantRequest__Output as _ess_v1_TenantRequest__Output } from './ess/v1/TenantRequest.js';
import type { TenantUsage as _ess_v1_TenantUsage, TenantUsage__Output as _ess_v1_TenantUsage__Output } from './ess/v1/TenantUsage.js';
import type { User as _ess_v1_User, User__Output as _ess_v1_User__Output } from './ess/v1/User.js';
import type { UserList as _ess_v1_UserList, UserList__Output as _ess_v1_UserList__Output } from './ess/v1/UserList.js';
import type { UsernameRequest as _ess_v1_UsernameRequest, UsernameRequest__Output as _ess_v1_UsernameRequest__Output } from './ess/v1/UsernameRequest.js';
import type { VerifyError as _ess_v1_VerifyError, VerifyError__Output as _ess_v1_VerifyError__Output } from './ess/v1/VerifyError.js';
import type { VerifyRequest as _ess_v1_VerifyRequest, VerifyRequest__Output as _ess_v1_VerifyRequest__Output } from './ess/v1/VerifyRequest.js';
import type { VerifyResult as _ess_v1_VerifyResult, VerifyResult__Output as _ess_v1_VerifyResult__Output } from './ess/v1/VerifyResult.js';
import type { WriterStatus as _ess_v1_WriterStatus, WriterStatus__Output as _ess_v1_WriterStatus__Output } from './ess/v1/WriterStatus.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  ess: {
    v1: {
      Admin: SubtypeConstructor<typeof grpc.Client, _ess_v1_AdminClient> & { service: _ess_v1_AdminDefinition }
      AppendRequest: MessageTypeDefinition<_ess_v1_AppendRequest, _ess_v1_AppendRequest__Output>
      AppendResult: MessageTypeDefinition<_ess_v1_AppendResult, _ess_v1_AppendResult__Output>
      AppendSessionEntry: MessageTypeDefinition<_ess_v1_AppendSessionEntry, _ess_v1_AppendSessionEntry__Output>
      AppendSessionOutcome: MessageTypeDefinition<_ess_v1_AppendSessionOutcome, _ess_v1_AppendSessionOutcome__Output>
      AppendSessionRequest: MessageTypeDefinition<_ess_v1_AppendSessionRequest, _ess_v1_AppendSessionRequest__Output>
      AppendSessionResponse: MessageTypeDefinition<_ess_v1_AppendSessionResponse, _ess_v1_AppendSessionResponse__Output>
      CaughtUp: MessageTypeDefinition<_ess_v1_CaughtUp, _ess_v1_CaughtUp__Output>
      Checkpoint: MessageTypeDefinition<_ess_v1_Checkpoint, _ess_v1_Checkpoint__Output>
      CreateUserRequest: MessageTypeDefinition<_ess_v1_CreateUserRequest, _ess_v1_CreateUserRequest__Output>
      DeleteRequest: MessageTypeDefinition<_ess_v1_DeleteRequest, _ess_v1_DeleteRequest__Output>
      EventRecord: MessageTypeDefinition<_ess_v1_EventRecord, _ess_v1_EventRecord__Output>
      EventToAppend: MessageTypeDefinition<_ess_v1_EventToAppend, _ess_v1_EventToAppend__Output>
      GetStorageStatusRequest: MessageTypeDefinition<_ess_v1_GetStorageStatusRequest, _ess_v1_GetStorageStatusRequest__Output>
      IndexStatus: MessageTypeDefinition<_ess_v1_IndexStatus, _ess_v1_IndexStatus__Output>
      Job: MessageTypeDefinition<_ess_v1_Job, _ess_v1_Job__Output>
      JobError: MessageTypeDefinition<_ess_v1_JobError, _ess_v1_JobError__Output>
      JobList: MessageTypeDefinition<_ess_v1_JobList, _ess_v1_JobList__Output>
      JobProgress: MessageTypeDefinition<_ess_v1_JobProgress, _ess_v1_JobProgress__Output>
      JobRequest: MessageTypeDefinition<_ess_v1_JobRequest, _ess_v1_JobRequest__Output>
      LastScavenge: MessageTypeDefinition<_ess_v1_LastScavenge, _ess_v1_LastScavenge__Output>
      ListStreamsRequest: MessageTypeDefinition<_ess_v1_ListStreamsRequest, _ess_v1_ListStreamsRequest__Output>
      PageRequest: MessageTypeDefinition<_ess_v1_PageRequest, _ess_v1_PageRequest__Output>
      PoolStatus: MessageTypeDefinition<_ess_v1_PoolStatus, _ess_v1_PoolStatus__Output>
      ReadAllRequest: MessageTypeDefinition<_ess_v1_ReadAllRequest, _ess_v1_ReadAllRequest__Output>
      ReadAllResult: MessageTypeDefinition<_ess_v1_ReadAllResult, _ess_v1_ReadAllResult__Output>
      ReadRequest: MessageTypeDefinition<_ess_v1_ReadRequest, _ess_v1_ReadRequest__Output>
      ReadResult: MessageTypeDefinition<_ess_v1_ReadResult, _ess_v1_ReadResult__Output>
      ReadSessionRequest: MessageTypeDefinition<_ess_v1_ReadSessionRequest, _ess_v1_ReadSessionRequest__Output>
      ReadSessionResponse: MessageTypeDefinition<_ess_v1_ReadSessionResponse, _ess_v1_ReadSessionResponse__Output>
      Retention: MessageTypeDefinition<_ess_v1_Retention, _ess_v1_Retention__Output>
      ScavengeRequest: MessageTypeDefinition<_ess_v1_ScavengeRequest, _ess_v1_ScavengeRequest__Output>
      ScavengeResult: MessageTypeDefinition<_ess_v1_ScavengeResult, _ess_v1_ScavengeResult__Output>
      ScavengeStream: MessageTypeDefinition<_ess_v1_ScavengeStream, _ess_v1_ScavengeStream__Output>
      SegmentStatus: MessageTypeDefinition<_ess_v1_SegmentStatus, _ess_v1_SegmentStatus__Output>
      SessionError: MessageTypeDefinition<_ess_v1_SessionError, _ess_v1_SessionError__Output>
      SetMetadataRequest: MessageTypeDefinition<_ess_v1_SetMetadataRequest, _ess_v1_SetMetadataRequest__Output>
      SetRetentionRequest: MessageTypeDefinition<_ess_v1_SetRetentionRequest, _ess_v1_SetRetentionRequest__Output>
      StartJobRequest: MessageTypeDefinition<_ess_v1_StartJobRequest, _ess_v1_StartJobRequest__Output>
      StorageStatus: MessageTypeDefinition<_ess_v1_StorageStatus, _ess_v1_StorageStatus__Output>
      StreamInfo: MessageTypeDefinition<_ess_v1_StreamInfo, _ess_v1_StreamInfo__Output>
      StreamList: MessageTypeDefinition<_ess_v1_StreamList, _ess_v1_StreamList__Output>
      StreamMetadata: MessageTypeDefinition<_ess_v1_StreamMetadata, _ess_v1_StreamMetadata__Output>
      StreamRequest: MessageTypeDefinition<_ess_v1_StreamRequest, _ess_v1_StreamRequest__Output>
      StreamSummary: MessageTypeDefinition<_ess_v1_StreamSummary, _ess_v1_StreamSummary__Output>
      Streams: SubtypeConstructor<typeof grpc.Client, _ess_v1_StreamsClient> & { service: _ess_v1_StreamsDefinition }
      SubscribeRequest: MessageTypeDefinition<_ess_v1_SubscribeRequest, _ess_v1_SubscribeRequest__Output>
      SubscribeResponse: MessageTypeDefinition<_ess_v1_SubscribeResponse, _ess_v1_SubscribeResponse__Output>
      TableStatus: MessageTypeDefinition<_ess_v1_TableStatus, _ess_v1_TableStatus__Output>
      TenantDetail: MessageTypeDefinition<_ess_v1_TenantDetail, _ess_v1_TenantDetail__Output>
      TenantList: MessageTypeDefinition<_ess_v1_TenantList, _ess_v1_TenantList__Output>
      TenantRequest: MessageTypeDefinition<_ess_v1_TenantRequest, _ess_v1_TenantRequest__Output>
      TenantUsage: MessageTypeDefinition<_ess_v1_TenantUsage, _ess_v1_TenantUsage__Output>
      User: MessageTypeDefinition<_ess_v1_User, _ess_v1_User__Output>
      UserList: MessageTypeDefinition<_ess_v1_UserList, _ess_v1_UserList__Output>
      UsernameRequest: MessageTypeDefinition<_ess_v1_UsernameRequest, _ess_v1_UsernameRequest__Output>
      VerifyError: MessageTypeDefinition<_ess_v1_VerifyError, _ess_v1_VerifyError__Output>
      VerifyRequest: MessageTypeDefinition<_ess_v1_VerifyRequest, _ess_v1_VerifyRequest__Output>
      VerifyResult: MessageTypeDefinition<_ess_v1_VerifyResult, _ess_v1_VerifyResult__Output>
      WriterStatus: MessageTypeDefinition<_ess_v1_WriterStatus, _ess_v1_WriterStatus__Output>
    }
  }
}

