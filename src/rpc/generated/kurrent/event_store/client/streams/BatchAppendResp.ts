// Original file: proto/kurrent/streams.proto

import type { UUID as _event_store_client_UUID, UUID__Output as _event_store_client_UUID__Output } from '../../../event_store/client/UUID.js';
import type { Status as _google_rpc_Status, Status__Output as _google_rpc_Status__Output } from '../../../google/rpc/Status.js';
import type { StreamIdentifier as _event_store_client_StreamIdentifier, StreamIdentifier__Output as _event_store_client_StreamIdentifier__Output } from '../../../event_store/client/StreamIdentifier.js';
import type { Empty as _google_protobuf_Empty, Empty__Output as _google_protobuf_Empty__Output } from '../../../google/protobuf/Empty.js';
import type { AllStreamPosition as _event_store_client_AllStreamPosition, AllStreamPosition__Output as _event_store_client_AllStreamPosition__Output } from '../../../event_store/client/AllStreamPosition.js';
import type { Long } from '@grpc/proto-loader';

export interface _event_store_client_streams_BatchAppendResp_Success {
  'current_revision'?: (number | string | Long);
  'no_stream'?: (_google_protobuf_Empty | null);
  'position'?: (_event_store_client_AllStreamPosition | null);
  'no_position'?: (_google_protobuf_Empty | null);
  'current_revision_option'?: "current_revision"|"no_stream";
  'position_option'?: "position"|"no_position";
}

export interface _event_store_client_streams_BatchAppendResp_Success__Output {
  'current_revision'?: (string);
  'no_stream'?: (_google_protobuf_Empty__Output | null);
  'position'?: (_event_store_client_AllStreamPosition__Output | null);
  'no_position'?: (_google_protobuf_Empty__Output | null);
  'current_revision_option'?: "current_revision"|"no_stream";
  'position_option'?: "position"|"no_position";
}

export interface BatchAppendResp {
  'correlation_id'?: (_event_store_client_UUID | null);
  'error'?: (_google_rpc_Status | null);
  'success'?: (_event_store_client_streams_BatchAppendResp_Success | null);
  'stream_identifier'?: (_event_store_client_StreamIdentifier | null);
  'stream_position'?: (number | string | Long);
  'no_stream'?: (_google_protobuf_Empty | null);
  'any'?: (_google_protobuf_Empty | null);
  'stream_exists'?: (_google_protobuf_Empty | null);
  'result'?: "error"|"success";
  'expected_stream_position'?: "stream_position"|"no_stream"|"any"|"stream_exists";
}

export interface BatchAppendResp__Output {
  'correlation_id': (_event_store_client_UUID__Output | null);
  'error'?: (_google_rpc_Status__Output | null);
  'success'?: (_event_store_client_streams_BatchAppendResp_Success__Output | null);
  'stream_identifier': (_event_store_client_StreamIdentifier__Output | null);
  'stream_position'?: (string);
  'no_stream'?: (_google_protobuf_Empty__Output | null);
  'any'?: (_google_protobuf_Empty__Output | null);
  'stream_exists'?: (_google_protobuf_Empty__Output | null);
  'result'?: "error"|"success";
  'expected_stream_position'?: "stream_position"|"no_stream"|"any"|"stream_exists";
}
