// Original file: proto/ess/v1/streams.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AppendRequest as _ess_v1_AppendRequest, AppendRequest__Output as _ess_v1_AppendRequest__Output } from '../../ess/v1/AppendRequest.js';
import type { AppendResult as _ess_v1_AppendResult, AppendResult__Output as _ess_v1_AppendResult__Output } from '../../ess/v1/AppendResult.js';
import type { AppendSessionRequest as _ess_v1_AppendSessionRequest, AppendSessionRequest__Output as _ess_v1_AppendSessionRequest__Output } from '../../ess/v1/AppendSessionRequest.js';
import type { AppendSessionResponse as _ess_v1_AppendSessionResponse, AppendSessionResponse__Output as _ess_v1_AppendSessionResponse__Output } from '../../ess/v1/AppendSessionResponse.js';
import type { DeleteRequest as _ess_v1_DeleteRequest, DeleteRequest__Output as _ess_v1_DeleteRequest__Output } from '../../ess/v1/DeleteRequest.js';
import type { ListStreamsRequest as _ess_v1_ListStreamsRequest, ListStreamsRequest__Output as _ess_v1_ListStreamsRequest__Output } from '../../ess/v1/ListStreamsRequest.js';
import type { ReadAllRequest as _ess_v1_ReadAllRequest, ReadAllRequest__Output as _ess_v1_ReadAllRequest__Output } from '../../ess/v1/ReadAllRequest.js';
import type { ReadAllResult as _ess_v1_ReadAllResult, ReadAllResult__Output as _ess_v1_ReadAllResult__Output } from '../../ess/v1/ReadAllResult.js';
import type { ReadRequest as _ess_v1_ReadRequest, ReadRequest__Output as _ess_v1_ReadRequest__Output } from '../../ess/v1/ReadRequest.js';
import type { ReadResult as _ess_v1_ReadResult, ReadResult__Output as _ess_v1_ReadResult__Output } from '../../ess/v1/ReadResult.js';
import type { ReadSessionRequest as _ess_v1_ReadSessionRequest, ReadSessionRequest__Output as _ess_v1_ReadSessionRequest__Output } from '../../ess/v1/ReadSessionRequest.js';
import type { ReadSessionResponse as _ess_v1_ReadSessionResponse, ReadSessionResponse__Output as _ess_v1_ReadSessionResponse__Output } from '../../ess/v1/ReadSessionResponse.js';
import type { SetMetadataRequest as _ess_v1_SetMetadataRequest, SetMetadataRequest__Output as _ess_v1_SetMetadataRequest__Output } from '../../ess/v1/SetMetadataRequest.js';
import type { SetRetentionRequest as _ess_v1_SetRetentionRequest, SetRetentionRequest__Output as _ess_v1_SetRetentionRequest__Output } from '../../ess/v1/SetRetentionRequest.js';
import type { StreamInfo as _ess_v1_StreamInfo, StreamInfo__Output as _ess_v1_StreamInfo__Output } from '../../ess/v1/StreamInfo.js';
import type { StreamList as _ess_v1_StreamList, StreamList__Output as _ess_v1_StreamList__Output } from '../../ess/v1/StreamList.js';
import type { StreamMetadata as _ess_v1_StreamMetadata, StreamMetadata__Output as _ess_v1_StreamMetadata__Output } from '../../ess/v1/StreamMetadata.js';
import type { StreamRequest as _ess_v1_StreamRequest, StreamRequest__Output as _ess_v1_StreamRequest__Output } from '../../ess/v1/StreamRequest.js';
import type { SubscribeRequest as _ess_v1_SubscribeRequest, SubscribeRequest__Output as _ess_v1_SubscribeRequest__Output } from '../../ess/v1/SubscribeRequest.js';
import type { SubscribeResponse as _ess_v1_SubscribeResponse, SubscribeResponse__Output as _ess_v1_SubscribeResponse__Output } from '../../ess/v1/SubscribeResponse.js';

export interface StreamsClient extends grpc.Client {
  Append(argument: _ess_v1_AppendRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_AppendResult__Output>): grpc.ClientUnaryCall;
  Append(argument: _ess_v1_AppendRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_AppendResult__Output>): grpc.ClientUnaryCall;
  Append(argument: _ess_v1_AppendRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_AppendResult__Output>): grpc.ClientUnaryCall;
  Append(argument: _ess_v1_AppendRequest, callback: grpc.requestCallback<_ess_v1_AppendResult__Output>): grpc.ClientUnaryCall;
  append(argument: _ess_v1_AppendRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_AppendResult__Output>): grpc.ClientUnaryCall;
  append(argument: _ess_v1_AppendRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_AppendResult__Output>): grpc.ClientUnaryCall;
  append(argument: _ess_v1_AppendRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_AppendResult__Output>): grpc.ClientUnaryCall;
  append(argument: _ess_v1_AppendRequest, callback: grpc.requestCallback<_ess_v1_AppendResult__Output>): grpc.ClientUnaryCall;
  
  AppendSession(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_ess_v1_AppendSessionRequest, _ess_v1_AppendSessionResponse__Output>;
  AppendSession(options?: grpc.CallOptions): grpc.ClientDuplexStream<_ess_v1_AppendSessionRequest, _ess_v1_AppendSessionResponse__Output>;
  appendSession(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_ess_v1_AppendSessionRequest, _ess_v1_AppendSessionResponse__Output>;
  appendSession(options?: grpc.CallOptions): grpc.ClientDuplexStream<_ess_v1_AppendSessionRequest, _ess_v1_AppendSessionResponse__Output>;
  
  Delete(argument: _ess_v1_DeleteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  Delete(argument: _ess_v1_DeleteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  Delete(argument: _ess_v1_DeleteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  Delete(argument: _ess_v1_DeleteRequest, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  delete(argument: _ess_v1_DeleteRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  delete(argument: _ess_v1_DeleteRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  delete(argument: _ess_v1_DeleteRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  delete(argument: _ess_v1_DeleteRequest, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  
  GetInfo(argument: _ess_v1_StreamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  GetInfo(argument: _ess_v1_StreamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  GetInfo(argument: _ess_v1_StreamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  GetInfo(argument: _ess_v1_StreamRequest, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  getInfo(argument: _ess_v1_StreamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  getInfo(argument: _ess_v1_StreamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  getInfo(argument: _ess_v1_StreamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  getInfo(argument: _ess_v1_StreamRequest, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  
  GetMetadata(argument: _ess_v1_StreamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  GetMetadata(argument: _ess_v1_StreamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  GetMetadata(argument: _ess_v1_StreamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  GetMetadata(argument: _ess_v1_StreamRequest, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  getMetadata(argument: _ess_v1_StreamRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  getMetadata(argument: _ess_v1_StreamRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  getMetadata(argument: _ess_v1_StreamRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  getMetadata(argument: _ess_v1_StreamRequest, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  
  List(argument: _ess_v1_ListStreamsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  List(argument: _ess_v1_ListStreamsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  List(argument: _ess_v1_ListStreamsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  List(argument: _ess_v1_ListStreamsRequest, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  list(argument: _ess_v1_ListStreamsRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  list(argument: _ess_v1_ListStreamsRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  list(argument: _ess_v1_ListStreamsRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  list(argument: _ess_v1_ListStreamsRequest, callback: grpc.requestCallback<_ess_v1_StreamList__Output>): grpc.ClientUnaryCall;
  
  Read(argument: _ess_v1_ReadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_ReadResult__Output>): grpc.ClientUnaryCall;
  Read(argument: _ess_v1_ReadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_ReadResult__Output>): grpc.ClientUnaryCall;
  Read(argument: _ess_v1_ReadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_ReadResult__Output>): grpc.ClientUnaryCall;
  Read(argument: _ess_v1_ReadRequest, callback: grpc.requestCallback<_ess_v1_ReadResult__Output>): grpc.ClientUnaryCall;
  read(argument: _ess_v1_ReadRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_ReadResult__Output>): grpc.ClientUnaryCall;
  read(argument: _ess_v1_ReadRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_ReadResult__Output>): grpc.ClientUnaryCall;
  read(argument: _ess_v1_ReadRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_ReadResult__Output>): grpc.ClientUnaryCall;
  read(argument: _ess_v1_ReadRequest, callback: grpc.requestCallback<_ess_v1_ReadResult__Output>): grpc.ClientUnaryCall;
  
  ReadAll(argument: _ess_v1_ReadAllRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_ReadAllResult__Output>): grpc.ClientUnaryCall;
  ReadAll(argument: _ess_v1_ReadAllRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_ReadAllResult__Output>): grpc.ClientUnaryCall;
  ReadAll(argument: _ess_v1_ReadAllRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_ReadAllResult__Output>): grpc.ClientUnaryCall;
  ReadAll(argument: _ess_v1_ReadAllRequest, callback: grpc.requestCallback<_ess_v1_ReadAllResult__Output>): grpc.ClientUnaryCall;
  readAll(argument: _ess_v1_ReadAllRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_ReadAllResult__Output>): grpc.ClientUnaryCall;
  readAll(argument: _ess_v1_ReadAllRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_ReadAllResult__Output>): grpc.ClientUnaryCall;
  readAll(argument: _ess_v1_ReadAllRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_ReadAllResult__Output>): grpc.ClientUnaryCall;
  readAll(argument: _ess_v1_ReadAllRequest, callback: grpc.requestCallback<_ess_v1_ReadAllResult__Output>): grpc.ClientUnaryCall;
  
  ReadSession(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_ess_v1_ReadSessionRequest, _ess_v1_ReadSessionResponse__Output>;
  ReadSession(options?: grpc.CallOptions): grpc.ClientDuplexStream<_ess_v1_ReadSessionRequest, _ess_v1_ReadSessionResponse__Output>;
  readSession(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_ess_v1_ReadSessionRequest, _ess_v1_ReadSessionResponse__Output>;
  readSession(options?: grpc.CallOptions): grpc.ClientDuplexStream<_ess_v1_ReadSessionRequest, _ess_v1_ReadSessionResponse__Output>;
  
  SetMetadata(argument: _ess_v1_SetMetadataRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  SetMetadata(argument: _ess_v1_SetMetadataRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  SetMetadata(argument: _ess_v1_SetMetadataRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  SetMetadata(argument: _ess_v1_SetMetadataRequest, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  setMetadata(argument: _ess_v1_SetMetadataRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  setMetadata(argument: _ess_v1_SetMetadataRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  setMetadata(argument: _ess_v1_SetMetadataRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  setMetadata(argument: _ess_v1_SetMetadataRequest, callback: grpc.requestCallback<_ess_v1_StreamMetadata__Output>): grpc.ClientUnaryCall;
  
  SetRetention(argument: _ess_v1_SetRetentionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  SetRetention(argument: _ess_v1_SetRetentionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  SetRetention(argument: _ess_v1_SetRetentionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  SetRetention(argument: _ess_v1_SetRetentionRequest, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  setRetention(argument: _ess_v1_SetRetentionRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  setRetention(argument: _ess_v1_SetRetentionRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  setRetention(argument: _ess_v1_SetRetentionRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  setRetention(argument: _ess_v1_SetRetentionRequest, callback: grpc.requestCallback<_ess_v1_StreamInfo__Output>): grpc.ClientUnaryCall;
  
  Subscribe(argument: _ess_v1_SubscribeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_ess_v1_SubscribeResponse__Output>;
  Subscribe(argument: _ess_v1_SubscribeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_ess_v1_SubscribeResponse__Output>;
  subscribe(argument: _ess_v1_SubscribeRequest, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_ess_v1_SubscribeResponse__Output>;
  subscribe(argument: _ess_v1_SubscribeRequest, options?: grpc.CallOptions): grpc.ClientReadableStream<_ess_v1_SubscribeResponse__Output>;
  
}

export interface StreamsHandlers extends grpc.UntypedServiceImplementation {
  Append: grpc.handleUnaryCall<_ess_v1_AppendRequest__Output, _ess_v1_AppendResult>;
  
  AppendSession: grpc.handleBidiStreamingCall<_ess_v1_AppendSessionRequest__Output, _ess_v1_AppendSessionResponse>;
  
  Delete: grpc.handleUnaryCall<_ess_v1_DeleteRequest__Output, _ess_v1_StreamInfo>;
  
  GetInfo: grpc.handleUnaryCall<_ess_v1_StreamRequest__Output, _ess_v1_StreamInfo>;
  
  GetMetadata: grpc.handleUnaryCall<_ess_v1_StreamRequest__Output, _ess_v1_StreamMetadata>;
  
  List: grpc.handleUnaryCall<_ess_v1_ListStreamsRequest__Output, _ess_v1_StreamList>;
  
  Read: grpc.handleUnaryCall<_ess_v1_ReadRequest__Output, _ess_v1_ReadResult>;
  
  ReadAll: grpc.handleUnaryCall<_ess_v1_ReadAllRequest__Output, _ess_v1_ReadAllResult>;
  
  ReadSession: grpc.handleBidiStreamingCall<_ess_v1_ReadSessionRequest__Output, _ess_v1_ReadSessionResponse>;
  
  SetMetadata: grpc.handleUnaryCall<_ess_v1_SetMetadataRequest__Output, _ess_v1_StreamMetadata>;
  
  SetRetention: grpc.handleUnaryCall<_ess_v1_SetRetentionRequest__Output, _ess_v1_StreamInfo>;
  
  Subscribe: grpc.handleServerStreamingCall<_ess_v1_SubscribeRequest__Output, _ess_v1_SubscribeResponse>;
  
}

export interface StreamsDefinition extends grpc.ServiceDefinition {
  Append: MethodDefinition<_ess_v1_AppendRequest, _ess_v1_AppendResult, _ess_v1_AppendRequest__Output, _ess_v1_AppendResult__Output>
  AppendSession: MethodDefinition<_ess_v1_AppendSessionRequest, _ess_v1_AppendSessionResponse, _ess_v1_AppendSessionRequest__Output, _ess_v1_AppendSessionResponse__Output>
  Delete: MethodDefinition<_ess_v1_DeleteRequest, _ess_v1_StreamInfo, _ess_v1_DeleteRequest__Output, _ess_v1_StreamInfo__Output>
  GetInfo: MethodDefinition<_ess_v1_StreamRequest, _ess_v1_StreamInfo, _ess_v1_StreamRequest__Output, _ess_v1_StreamInfo__Output>
  GetMetadata: MethodDefinition<_ess_v1_StreamRequest, _ess_v1_StreamMetadata, _ess_v1_StreamRequest__Output, _ess_v1_StreamMetadata__Output>
  List: MethodDefinition<_ess_v1_ListStreamsRequest, _ess_v1_StreamList, _ess_v1_ListStreamsRequest__Output, _ess_v1_StreamList__Output>
  Read: MethodDefinition<_ess_v1_ReadRequest, _ess_v1_ReadResult, _ess_v1_ReadRequest__Output, _ess_v1_ReadResult__Output>
  ReadAll: MethodDefinition<_ess_v1_ReadAllRequest, _ess_v1_ReadAllResult, _ess_v1_ReadAllRequest__Output, _ess_v1_ReadAllResult__Output>
  ReadSession: MethodDefinition<_ess_v1_ReadSessionRequest, _ess_v1_ReadSessionResponse, _ess_v1_ReadSessionRequest__Output, _ess_v1_ReadSessionResponse__Output>
  SetMetadata: MethodDefinition<_ess_v1_SetMetadataRequest, _ess_v1_StreamMetadata, _ess_v1_SetMetadataRequest__Output, _ess_v1_StreamMetadata__Output>
  SetRetention: MethodDefinition<_ess_v1_SetRetentionRequest, _ess_v1_StreamInfo, _ess_v1_SetRetentionRequest__Output, _ess_v1_StreamInfo__Output>
  Subscribe: MethodDefinition<_ess_v1_SubscribeRequest, _ess_v1_SubscribeResponse, _ess_v1_SubscribeRequest__Output, _ess_v1_SubscribeResponse__Output>
}
