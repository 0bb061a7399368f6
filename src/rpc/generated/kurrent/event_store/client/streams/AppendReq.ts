// Original file: proto/kurrent/streams.proto

import type { StreamIdentifier as _event_store_client_StreamIdentifier, StreamIdentifier__Output as _event_store_client_StreamIdentifier__Output } from '../../../event_store/client/StreamIdentifier.js';
import type { Empty as _event_store_client_Empty, Empty__Output as _event_store_client_Empty__Output } from '../../../event_store/client/Empty.js';
import type { UUID as _event_store_client_UUID, UUID__Output as _event_store_client_UUID__Output } from '../../../event_store/client/UUID.js';
import type { Long } from '@grpc/proto-loader';

export interface _event_store_client_streams_AppendReq_Options {
  'stream_identifier'?: (_event_store_client_StreamIdentifier | null);
  'revision'?: (number | string | Long);
  'no_stream'?: (_event_store_client_Empty | null);
  'any'?: (_event_store_client_Empty | null);
  'stream_exists'?: (_event_store_client_Empty | null);
  'expected_stream_revision'?: "revision"|"no_stream"|"any"|"stream_exists";
}

export interface _event_store_client_streams_AppendReq_Options__Output {
  'stream_identifier': (_event_store_client_StreamIdentifier__Output | null);
  'revision'?: (string);
  'no_stream'?: (_event_store_client_Empty__Output | null);
  'any'?: (_event_store_client_Empty__Output | null);
  'stream_exists'?: (_event_store_client_Empty__Output | null);
  'expected_stream_revision'?: "revision"|"no_stream"|"any"|"stream_exists";
}

export interface _event_store_client_streams_AppendReq_ProposedMessage {
  'id'?: (_event_store_client_UUID | null);
  'metadata'?: ({[key: string]: string});
  'custom_metadata'?: (Buffer | Uint8Array | string);
  'data'?: (Buffer | Uint8Array | string);
}

export interface _event_store_client_streams_AppendReq_ProposedMessage__Output {
  'id': (_event_store_client_UUID__Output | null);
  'metadata': ({[key: string]: string});
  'custom_metadata': (Buffer);
  'data': (Buffer);
}

export interface AppendReq {
  'options'?: (_event_store_client_streams_AppendReq_Options | null);
  'proposed_message'?: (_event_store_client_streams_AppendReq_ProposedMessage | null);
  'content'?: "options"|"proposed_message";
}

export interface AppendReq__Output {
  'options'?: (_event_store_client_streams_AppendReq_Options__Output | null);
  'proposed_message'?: (_event_store_client_streams_AppendReq_ProposedMessage__Output | null);
  'content'?: "options"|"proposed_message";
}
