// Original file: proto/kurrent/streams.proto

import type { AllStreamPosition as _event_store_client_AllStreamPosition, AllStreamPosition__Output as _event_store_client_AllStreamPosition__Output } from '../../../event_store/client/AllStreamPosition.js';
import type { Timestamp as _google_protobuf_Timestamp, Timestamp__Output as _google_protobuf_Timestamp__Output } from '../../../google/protobuf/Timestamp.js';
import type { Empty as _event_store_client_Empty, Empty__Output as _event_store_client_Empty__Output } from '../../../event_store/client/Empty.js';
import type { UUID as _event_store_client_UUID, UUID__Output as _event_store_client_UUID__Output } from '../../../event_store/client/UUID.js';
import type { StreamIdentifier as _event_store_client_StreamIdentifier, StreamIdentifier__Output as _event_store_client_StreamIdentifier__Output } from '../../../event_store/client/StreamIdentifier.js';
import type { Long } from '@grpc/proto-loader';

export interface _event_store_client_streams_ReadResp_CaughtUp {
  'timestamp'?: (_google_protobuf_Timestamp | null);
  'stream_revision'?: (number | string | Long);
  'position'?: (_event_store_client_streams_ReadResp_Position | null);
  '_stream_revision'?: "stream_revision";
  '_position'?: "position";
}

export interface _event_store_client_streams_ReadResp_CaughtUp__Output {
  'timestamp': (_google_protobuf_Timestamp__Output | null);
  'stream_revision'?: (string);
  'position'?: (_event_store_client_streams_ReadResp_Position__Output | null);
  '_stream_revision'?: "stream_revision";
  '_position'?: "position";
}

export interface _event_store_client_streams_ReadResp_Checkpoint {
  'commit_position'?: (number | string | Long);
  'prepare_position'?: (number | string | Long);
  'timestamp'?: (_google_protobuf_Timestamp | null);
}

export interface _event_store_client_streams_ReadResp_Checkpoint__Output {
  'commit_position': (string);
  'prepare_position': (string);
  'timestamp': (_google_protobuf_Timestamp__Output | null);
}

export interface _event_store_client_streams_ReadResp_FellBehind {
  'timestamp'?: (_google_protobuf_Timestamp | null);
  'stream_revision'?: (number | string | Long);
  'position'?: (_event_store_client_streams_ReadResp_Position | null);
  '_stream_revision'?: "stream_revision";
  '_position'?: "position";
}

export interface _event_store_client_streams_ReadResp_FellBehind__Output {
  'timestamp': (_google_protobuf_Timestamp__Output | null);
  'stream_revision'?: (string);
  'position'?: (_event_store_client_streams_ReadResp_Position__Output | null);
  '_stream_revision'?: "stream_revision";
  '_position'?: "position";
}

export interface _event_store_client_streams_ReadResp_Position {
  'commit_position'?: (number | string | Long);
  'prepare_position'?: (number | string | Long);
}

export interface _event_store_client_streams_ReadResp_Position__Output {
  'commit_position': (string);
  'prepare_position': (string);
}

export interface _event_store_client_streams_ReadResp_ReadEvent {
  'event'?: (_event_store_client_streams_ReadResp_ReadEvent_RecordedEvent | null);
  'link'?: (_event_store_client_streams_ReadResp_ReadEvent_RecordedEvent | null);
  'commit_position'?: (number | string | Long);
  'no_position'?: (_event_store_client_Empty | null);
  'position'?: "commit_position"|"no_position";
}

export interface _event_store_client_streams_ReadResp_ReadEvent__Output {
  'event': (_event_store_client_streams_ReadResp_ReadEvent_RecordedEvent__Output | null);
  'link': (_event_store_client_streams_ReadResp_ReadEvent_RecordedEvent__Output | null);
  'commit_position'?: (string);
  'no_position'?: (_event_store_client_Empty__Output | null);
  'position'?: "commit_position"|"no_position";
}

export interface _event_store_client_streams_ReadResp_ReadEvent_RecordedEvent {
  'id'?: (_event_store_client_UUID | null);
  'stream_identifier'?: (_event_store_client_StreamIdentifier | null);
  'stream_revision'?: (number | string | Long);
  'prepare_position'?: (number | string | Long);
  'commit_position'?: (number | string | Long);
  'metadata'?: ({[key: string]: string});
  'custom_metadata'?: (Buffer | Uint8Array | string);
  'data'?: (Buffer | Uint8Array | string);
}

export interface _event_store_client_streams_ReadResp_ReadEvent_RecordedEvent__Output {
  'id': (_event_store_client_UUID__Output | null);
  'stream_identifier': (_event_store_client_StreamIdentifier__Output | null);
  'stream_revision': (string);
  'prepare_position': (string);
  'commit_position': (string);
  'metadata': ({[key: string]: string});
  'custom_metadata': (Buffer);
  'data': (Buffer);
}

export interface _event_store_client_streams_ReadResp_StreamNotFound {
  'stream_identifier'?: (_event_store_client_StreamIdentifier | null);
}

export interface _event_store_client_streams_ReadResp_StreamNotFound__Output {
  'stream_identifier': (_event_store_client_StreamIdentifier__Output | null);
}

export interface _event_store_client_streams_ReadResp_SubscriptionConfirmation {
  'subscription_id'?: (string);
}

export interface _event_store_client_streams_ReadResp_SubscriptionConfirmation__Output {
  'subscription_id': (string);
}

export interface ReadResp {
  'event'?: (_event_store_client_streams_ReadResp_ReadEvent | null);
  'confirmation'?: (_event_store_client_streams_ReadResp_SubscriptionConfirmation | null);
  'checkpoint'?: (_event_store_client_streams_ReadResp_Checkpoint | null);
  'stream_not_found'?: (_event_store_client_streams_ReadResp_StreamNotFound | null);
  'first_stream_position'?: (number | string | Long);
  'last_stream_position'?: (number | string | Long);
  'last_all_stream_position'?: (_event_store_client_AllStreamPosition | null);
  'caught_up'?: (_event_store_client_streams_ReadResp_CaughtUp | null);
  'fell_behind'?: (_event_store_client_streams_ReadResp_FellBehind | null);
  'content'?: "event"|"confirmation"|"checkpoint"|"stream_not_found"|"first_stream_position"|"last_stream_position"|"last_all_stream_position"|"caught_up"|"fell_behind";
}

export interface ReadResp__Output {
  'event'?: (_event_store_client_streams_ReadResp_ReadEvent__Output | null);
  'confirmation'?: (_event_store_client_streams_ReadResp_SubscriptionConfirmation__Output | null);
  'checkpoint'?: (_event_store_client_streams_ReadResp_Checkpoint__Output | null);
  'stream_not_found'?: (_event_store_client_streams_ReadResp_StreamNotFound__Output | null);
  'first_stream_position'?: (string);
  'last_stream_position'?: (string);
  'last_all_stream_position'?: (_event_store_client_AllStreamPosition__Output | null);
  'caught_up'?: (_event_store_client_streams_ReadResp_CaughtUp__Output | null);
  'fell_behind'?: (_event_store_client_streams_ReadResp_FellBehind__Output | null);
  'content'?: "event"|"confirmation"|"checkpoint"|"stream_not_found"|"first_stream_position"|"last_stream_position"|"last_all_stream_position"|"caught_up"|"fell_behind";
}
