import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AccessDenied as _event_store_client_AccessDenied, AccessDenied__Output as _event_store_client_AccessDenied__Output } from './event_store/client/AccessDenied.js';
import type { AllStreamPosition as _event_store_client_AllStreamPosition, AllStreamPosition__Output as _event_store_client_AllStreamPosition__Output } from './event_store/client/AllStreamPosition.js';
import type { BadRequest as _event_store_client_BadRequest, BadRequest__Output as _event_store_client_BadRequest__Output } from './event_store/client/BadRequest.js';
import type { Empty as _event_store_client_Empty, Empty__Output as _event_store_client_Empty__Output } from './event_store/client/Empty.js';
import type { InvalidTransaction as _event_store_client_InvalidTransaction, InvalidTransaction__Output as _event_store_client_InvalidTransaction__Output } from './event_store/client/InvalidTransaction.js';
import type { MaximumAppendSizeExceeded as _event_store_client_MaximumAppendSizeExceeded, MaximumAppendSizeExceeded__Output as _event_store_client_MaximumAppendSizeExceeded__Output } from './event_store/client/MaximumAppendSizeExceeded.js';
import type { StreamDeleted as _event_store_client_StreamDeleted, StreamDeleted__Output as _event_store_client_StreamDeleted__Output } from './event_store/client/StreamDeleted.js';
import type { StreamIdentifier as _event_store_client_StreamIdentifier, StreamIdentifier__Output as _event_store_client_StreamIdentifier__Output } from './event_store/client/StreamIdentifier.js';
import type { Timeout as _event_store_client_Timeout, Timeout__Output as _event_store_client_Timeout__Output } from './event_store/client/Timeout.js';
import type { UUID as _event_store_client_UUID, UUID__Output as _event_store_client_UUID__Output } from './event_store/client/UUID.js';
import type { Unknown as _event_store_client_Unknown, Unknown__Output as _event_store_client_Unknown__Output } from './event_store/client/Unknown.js';
import type { WrongExpectedVersion as _event_store_client_WrongExpectedVersion, WrongExpectedVersion__Output as _event_store_client_WrongExpectedVersion__Output } from './event_store/client/WrongExpectedVersion.js';
import type { AppendReq as _event_store_client_streams_AppendReq, AppendReq__Output as _event_store_client_streams_AppendReq__Output } from './event_store/client/streams/AppendReq.js';
import type { AppendResp as _event_store_client_streams_AppendResp, AppendResp__Output as _event_store_client_streams_AppendResp__Output } from './event_store/client/streams/AppendResp.js';
import type { BatchAppendReq as _event_store_client_streams_BatchAppendReq, BatchAppendReq__Output as _event_store_client_streams_BatchAppendReq__Output } from './event_store/client/streams/BatchAppendReq.js';
import type { BatchAppendResp as _event_store_client_streams_BatchAppendResp, BatchAppendResp__Output as _event_store_client_streams_BatchAppendResp__Output } from './event_store/client/streams/BatchAppendResp.js';
import type { DeleteReq as _event_store_client_streams_DeleteReq, DeleteReq__Output as _event_store_client_streams_DeleteReq__Output } from './event_store/client/streams/DeleteReq.js';
import type { DeleteResp as _event_store_client_streams_DeleteResp, DeleteResp__Output as _event_store_client_streams_DeleteResp__Output } from './event_store/client/streams/DeleteResp.js';
import type { ReadReq as _event_store_client_streams_ReadReq, ReadReq__Output as _event_store_client_streams_ReadReq__Output } from './event_store/client/streams/ReadReq.js';
import type { ReadResp as _event_store_client_streams_ReadResp, ReadResp__Output as _event_store_client_streams_ReadResp__Output } from './event_store/client/streams/ReadResp.js';
import type { StreamsClient as _event_store_client_streams_StreamsClient, StreamsDefinition as _event_store_client_streams_StreamsDefinition } from './event_store/client/streams/Streams.js';
import type { TombstoneReq as _event_store_client_streams_TombstoneReq, TombstoneReq__Output as _event_store_client_streams_TombstoneReq__Output } from './event_store/client/streams/TombstoneReq.js';
import type { TombstoneResp as _event_store_client_streams_TombstoneResp, TombstoneResp__Output as _event_store_client_streams_TombstoneResp__Output } from './event_store/client/streams/TombstoneResp.js';
import type { Any as _google_protobuf_Any, Any__Output as _google_protobuf_Any__Output } from './google/protobuf/Any.js';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from './google/protobuf/Duration.js';
import type { Empty as _google_protobuf_Empty, Empty__Output as _google_protobuf_Empty__Output } from './google/protobuf/Empty.js';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from './google/protobuf/Timestamp.js';
import type { Status as _google_rpc_Status, Status__Output as _google_rpc_Status__Output } from './google/rpc/Status.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  event_store: {
    client: {
      AccessDenied: MessageTypeDefinition<_event_store_client_AccessDenied, _event_store_client_AccessDenied__Output>
      AllStreamPosition: MessageTypeDefinition<_event_store_client_AllStreamPosition, _event_store_client_AllStreamPosition__Output>
      BadRequest: MessageTypeDefinition<_event_store_client_BadRequest, _event_store_client_BadRequest__Output>
      Empty: MessageTypeDefinition<_event_store_client_Empty, _event_store_client_Empty__Output>
      InvalidTransaction: MessageTypeDefinition<_event_store_client_InvalidTransaction, _event_store_client_InvalidTransaction__Output>
      MaximumAppendSizeExceeded: MessageTypeDefinition<_event_store_client_MaximumAppendSizeExceeded, _event_store_client_MaximumAppendSizeExceeded__Output>
      StreamDeleted: MessageTypeDefinition<_event_store_client_StreamDeleted, _event_store_client_StreamDeleted__Output>
      StreamIdentifier: MessageTypeDefinition<_event_store_client_StreamIdentifier, _event_store_client_StreamIdentifier__Output>
      Timeout: MessageTypeDefinition<_event_store_client_Timeout, _event_store_client_Timeout__Output>
      UUID: MessageTypeDefinition<_event_store_client_UUID, _event_store_client_UUID__Output>
      Unknown: MessageTypeDefinition<_event_store_client_Unknown, _event_store_client_Unknown__Output>
      WrongExpectedVersion: MessageTypeDefinition<_event_store_client_WrongExpectedVersion, _event_store_client_WrongExpectedVersion__Output>
      streams: {
        AppendReq: MessageTypeDefinition<_event_store_client_streams_AppendReq, _event_store_client_streams_AppendReq__Output>
        AppendResp: MessageTypeDefinition<_event_store_client_streams_AppendResp, _event_store_client_streams_AppendResp__Output>
        BatchAppendReq: MessageTypeDefinition<_event_store_client_streams_BatchAppendReq, _event_store_client_streams_BatchAppendReq__Output>
        BatchAppendResp: MessageTypeDefinition<_event_store_client_streams_BatchAppendResp, _event_store_client_streams_BatchAppendResp__Output>
        DeleteReq: MessageTypeDefinition<_event_store_client_streams_DeleteReq, _event_store_client_streams_DeleteReq__Output>
        DeleteResp: MessageTypeDefinition<_event_store_client_streams_DeleteResp, _event_store_client_streams_DeleteResp__Output>
        ReadReq: MessageTypeDefinition<_event_store_client_streams_ReadReq, _event_store_client_streams_ReadReq__Output>
        ReadResp: MessageTypeDefinition<_event_store_client_streams_ReadResp, _event_store_client_streams_ReadResp__Output>
        Streams: SubtypeConstructor<typeof grpc.Client, _event_store_client_streams_StreamsClient> & { service: _event_store_client_streams_StreamsDefinition }
        TombstoneReq: MessageTypeDefinition<_event_store_client_streams_TombstoneReq, _event_store_client_streams_TombstoneReq__Output>
        TombstoneResp: MessageTypeDefinition<_event_store_client_streams_TombstoneResp, _event_store_client_streams_TombstoneResp__Output>
      }
    }
  }
  google: {
    protobuf: {
      Any: MessageTypeDefinition<_google_protobuf_Any, _google_protobuf_Any__Output>
      Duration: MessageTypeDefinition<_google_protobuf_Duration, _google_protobuf_Duration__Output>
      Empty: MessageTypeDefinition<_google_protobuf_Empty, _google_protobuf_Empty__Output>
      Timestamp: MessageTypeDefinition<_google_protobuf_Timestamp, _google_protobuf_Timestamp__Output>
    }
    rpc: {
      Status: MessageTypeDefinition<_google_rpc_Status, _google_rpc_Status__Output>
    }
  }
}

