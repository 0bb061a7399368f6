// Original file: proto/kurrent/streams.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { AppendReq as _event_store_client_streams_AppendReq, AppendReq__Output as _event_store_client_streams_AppendReq__Output } from '../../../event_store/client/streams/AppendReq.js';
import type { AppendResp as _event_store_client_streams_AppendResp, AppendResp__Output as _event_store_client_streams_AppendResp__Output } from '../../../event_store/client/streams/AppendResp.js';
import type { BatchAppendReq as _event_store_client_streams_BatchAppendReq, BatchAppendReq__Output as _event_store_client_streams_BatchAppendReq__Output } from '../../../event_store/client/streams/BatchAppendReq.js';
import type { BatchAppendResp as _event_store_client_streams_BatchAppendResp, BatchAppendResp__Output as _event_store_client_streams_BatchAppendResp__Output } from '../../../event_store/client/streams/BatchAppendResp.js';
import type { DeleteReq as _event_store_client_streams_DeleteReq, DeleteReq__Output as _event_store_client_streams_DeleteReq__Output } from '../../../event_store/client/streams/DeleteReq.js';
import type { DeleteResp as _event_store_client_streams_DeleteResp, DeleteResp__Output as _event_store_client_streams_DeleteResp__Output } from '../../../event_store/client/streams/DeleteResp.js';
import type { ReadReq as _event_store_client_streams_ReadReq, ReadReq__Output as _event_store_client_streams_ReadReq__Output } from '../../../event_store/client/streams/ReadReq.js';
import type { ReadResp as _event_store_client_streams_ReadResp, ReadResp__Output as _event_store_client_streams_ReadResp__Output } from '../../../event_store/client/streams/ReadResp.js';
import type { TombstoneReq as _event_store_client_streams_TombstoneReq, TombstoneReq__Output as _event_store_client_streams_TombstoneReq__Output } from '../../../event_store/client/streams/TombstoneReq.js';
import type { TombstoneResp as _event_store_client_streams_TombstoneResp, TombstoneResp__Output as _event_store_client_streams_TombstoneResp__Output } from '../../../event_store/client/streams/TombstoneResp.js';

export interface StreamsClient extends grpc.Client {
  Append(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_streams_AppendResp__Output>): grpc.ClientWritableStream<_event_store_client_streams_AppendReq>;
  Append(metadata: grpc.Metadata, callback: grpc.requestCallback<_event_store_client_streams_AppendResp__Output>): grpc.ClientWritableStream<_event_store_client_streams_AppendReq>;
  Append(options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_streams_AppendResp__Output>): grpc.ClientWritableStream<_event_store_client_streams_AppendReq>;
  Append(callback: grpc.requestCallback<_event_store_client_streams_AppendResp__Output>): grpc.ClientWritableStream<_event_store_client_streams_AppendReq>;
  append(metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_streams_AppendResp__Output>): grpc.ClientWritableStream<_event_store_client_streams_AppendReq>;
  append(metadata: grpc.Metadata, callback: grpc.requestCallback<_event_store_client_streams_AppendResp__Output>): grpc.ClientWritableStream<_event_store_client_streams_AppendReq>;
  append(options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_streams_AppendResp__Output>): grpc.ClientWritableStream<_event_store_client_streams_AppendReq>;
  append(callback: grpc.requestCallback<_event_store_client_streams_AppendResp__Output>): grpc.ClientWritableStream<_event_store_client_streams_AppendReq>;
  
  BatchAppend(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_event_store_client_streams_BatchAppendReq, _event_store_client_streams_BatchAppendResp__Output>;
  BatchAppend(options?: grpc.CallOptions): grpc.ClientDuplexStream<_event_store_client_streams_BatchAppendReq, _event_store_client_streams_BatchAppendResp__Output>;
  batchAppend(metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<_event_store_client_streams_BatchAppendReq, _event_store_client_streams_BatchAppendResp__Output>;
  batchAppend(options?: grpc.CallOptions): grpc.ClientDuplexStream<_event_store_client_streams_BatchAppendReq, _event_store_client_streams_BatchAppendResp__Output>;
  
  Delete(argument: _event_store_client_streams_DeleteReq, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_streams_DeleteResp__Output>): grpc.ClientUnaryCall;
  Delete(argument: _event_store_client_streams_DeleteReq, metadata: grpc.Metadata, callback: grpc.requestCallback<_event_store_client_streams_DeleteResp__Output>): grpc.ClientUnaryCall;
  Delete(argument: _event_store_client_streams_DeleteReq, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_streams_DeleteResp__Output>): grpc.ClientUnaryCall;
  Delete(argument: _event_store_client_streams_DeleteReq, callback: grpc.requestCallback<_event_store_client_streams_DeleteResp__Output>): grpc.ClientUnaryCall;
  delete(argument: _event_store_client_streams_DeleteReq, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_streams_DeleteResp__Output>): grpc.ClientUnaryCall;
  delete(argument: _event_store_client_streams_DeleteReq, metadata: grpc.Metadata, callback: grpc.requestCallback<_event_store_client_streams_DeleteResp__Output>): grpc.ClientUnaryCall;
  delete(argument: _event_store_client_streams_DeleteReq, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_streams_DeleteResp__Output>): grpc.ClientUnaryCall;
  delete(argument: _event_store_client_streams_DeleteReq, callback: grpc.requestCallback<_event_store_client_streams_DeleteResp__Output>): grpc.ClientUnaryCall;
  
  Read(argument: _event_store_client_streams_ReadReq, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_event_store_client_streams_ReadResp__Output>;
  Read(argument: _event_store_client_streams_ReadReq, options?: grpc.CallOptions): grpc.ClientReadableStream<_event_store_client_streams_ReadResp__Output>;
  read(argument: _event_store_client_streams_ReadReq, metadata: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<_event_store_client_streams_ReadResp__Output>;
  read(argument: _event_store_client_streams_ReadReq, options?: grpc.CallOptions): grpc.ClientReadableStream<_event_store_client_streams_ReadResp__Output>;
  
  Tombstone(argument: _event_store_client_streams_TombstoneReq, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_streams_TombstoneResp__Output>): grpc.ClientUnaryCall;
  Tombstone(argument: _event_store_client_streams_TombstoneReq, metadata: grpc.Metadata, callback: grpc.requestCallback<_event_store_client_streams_TombstoneResp__Output>): grpc.ClientUnaryCall;
  Tombstone(argument: _event_store_client_streams_TombstoneReq, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_streams_TombstoneResp__Output>): grpc.ClientUnaryCall;
  Tombstone(argument: _event_store_client_streams_TombstoneReq, callback: grpc.requestCallback<_event_store_client_streams_TombstoneResp__Output>): grpc.ClientUnaryCall;
  tombstone(argument: _event_store_client_streams_TombstoneReq, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_streams_TombstoneResp__Output>): grpc.ClientUnaryCall;
  tombstone(argument: _event_store_client_streams_TombstoneReq, metadata: grpc.Metadata, callback: grpc.requestCallback<_event_store_client_streams_TombstoneResp__Output>): grpc.ClientUnaryCall;
  tombstone(argument: _event_store_client_streams_TombstoneReq, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_streams_TombstoneResp__Output>): grpc.ClientUnaryCall;
  tombstone(argument: _event_store_client_streams_TombstoneReq, callback: grpc.requestCallback<_event_store_client_streams_TombstoneResp__Output>): grpc.ClientUnaryCall;
  
}

export interface StreamsHandlers extends grpc.UntypedServiceImplementation {
  Append: grpc.handleClientStreamingCall<_event_store_client_streams_AppendReq__Output, _event_store_client_streams_AppendResp>;
  
  BatchAppend: grpc.handleBidiStreamingCall<_event_store_client_streams_BatchAppendReq__Output, _event_store_client_streams_BatchAppendResp>;
  
  Delete: grpc.handleUnaryCall<_event_store_client_streams_DeleteReq__Output, _event_store_client_streams_DeleteResp>;
  
  Read: grpc.handleServerStreamingCall<_event_store_client_streams_ReadReq__Output, _event_store_client_streams_ReadResp>;
  
  Tombstone: grpc.handleUnaryCall<_event_store_client_streams_TombstoneReq__Output, _event_store_client_streams_TombstoneResp>;
  
}

export interface StreamsDefinition extends grpc.ServiceDefinition {
  Append: MethodDefinition<_event_store_client_streams_AppendReq, _event_store_client_streams_AppendResp, _event_store_client_streams_AppendReq__Output, _event_store_client_streams_AppendResp__Output>
  BatchAppend: MethodDefinition<_event_store_client_streams_BatchAppendReq, _event_store_client_streams_BatchAppendResp, _event_store_client_streams_BatchAppendReq__Output, _event_store_client_streams_BatchAppendResp__Output>
  Delete: MethodDefinition<_event_store_client_streams_DeleteReq, _event_store_client_streams_DeleteResp, _event_store_client_streams_DeleteReq__Output, _event_store_client_streams_DeleteResp__Output>
  Read: MethodDefinition<_event_store_client_streams_ReadReq, _event_store_client_streams_ReadResp, _event_store_client_streams_ReadReq__Output, _event_store_client_streams_ReadResp__Output>
  Tombstone: MethodDefinition<_event_store_client_streams_TombstoneReq, _event_store_client_streams_TombstoneResp, _event_store_client_streams_TombstoneReq__Output, _event_store_client_streams_TombstoneResp__Output>
}
