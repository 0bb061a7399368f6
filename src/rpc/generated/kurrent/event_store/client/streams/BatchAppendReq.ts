// Original file: proto/kurrent/streams.proto

import type { UUID as _event_store_client_UUID, UUID__Output as _event_store_client_UUID__Output } from '../../../event_store/client/UUID.js';
import type { StreamIdentifier as _event_store_client_StreamIdentifier, StreamIdentifier__Output as _event_store_client_StreamIdentifier__Output } from '../../../event_store/client/StreamIdentifier.js';
import type { Empty as _google_protobuf_Empty, Empty__Output as _google_protobuf_Empty__Output } from '../../../google/protobuf/Empty.js';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp.js';
import type { Duration as _google_protobuf_Duration, Duration__Output as _google_protobuf_Duration__Output } from '../../../google/protobuf/Duration.js';
import type { Long } from '@grpc/proto-loader';

export interface _event_store_client_streams_BatchAppendReq_Options {
  'stream_identifier'?: (_event_store_client_StreamIdentifier | null);
  'stream_position'?: (number | string | Long);
  'no_stream'?: (_google_protobuf_Empty | null);
  'any'?: (_google_protobuf_Empty | null);
  'stream_exists'?: (_google_protobuf_Empty | null);
  'deadline_21_10_0'?: (_google_protobuf_Timestamp | null);
  'deadline'?: (_google_protobuf_Duration | null);
  'expected_stream_position'?: "stream_position"|"no_stream"|"any"|"stream_exists";
  'deadline_option'?: "deadline_21_10_0"|"deadline";
}

export interface _event_store_client_streams_BatchAppendReq_Options__Output {
  'stream_identifier': (_event_store_client_StreamIdentifier__Output | null);
  'stream_position'?: (string);
  'no_stream'?: (_google_protobuf_Empty__Output | null);
  'any'?: (_google_protobuf_Empty__Output | null);
  'stream_exists'?: (_google_protobuf_Empty__Output | null);
  'deadline_21_10_0'?: (_google_protobuf_Timestamp__Output | null);
  'deadline'?: (_google_protobuf_Duration__Output | null);
  'expected_stream_position'?: "stream_position"|"no_stream"|"any"|"stream_exists";
  'deadline_option'?: "deadline_21_10_0"|"deadline";
}

export interface _event_store_client_streams_BatchAppendReq_ProposedMessage {
  'id'?: (_event_store_client_UUID | null);
  'metadata'?: ({[key: string]: string});
  'custom_metadata'?: (Buffer | Uint8Array | string);
  'data'?: (Buffer | Uint8Array | string);
}

export interface _event_store_client_streams_BatchAppendReq_ProposedMessage__Output {
  'id': (_event_store_client_UUID__Output | null);
  'metadata': ({[key: string]: string});
  'custom_metadata': (Buffer);
  'data': (Buffer);
}

export interface BatchAppendReq {
  'correlation_id'?: (_event_store_client_UUID | null);
  'options'?: (_event_store_client_streams_BatchAppendReq_Options | null);
  'proposed_messages'?: (_event_store_client_streams_BatchAppendReq_ProposedMessage)[];
  'is_final'?: (boolean);
}

export interface BatchAppendReq__Output {
  'correlation_id': (_event_store_client_UUID__Output | null);
  'options': (_event_store_client_streams_BatchAppendReq_Options__Output | null);
  'proposed_messages': (_event_store_client_streams_BatchAppendReq_ProposedMessage__Output)[];
  'is_final': (boolean);
}
