// Original file: proto/kurrent/streams.proto

import type { StreamIdentifier as _event_store_client_StreamIdentifier, StreamIdentifier__Output as _event_store_client_StreamIdentifier__Output } from '../../../event_store/client/StreamIdentifier.js';
import type { Empty as _event_store_client_Empty, Empty__Output as _event_store_client_Empty__Output } from '../../../event_store/client/Empty.js';
import type { Long } from '@grpc/proto-loader';

export interface _event_store_client_streams_TombstoneReq_Options {
  'stream_identifier'?: (_event_store_client_StreamIdentifier | null);
  'revision'?: (number | string | Long);
  'no_stream'?: (_event_store_client_Empty | null);
  'any'?: (_event_store_client_Empty | null);
  'stream_exists'?: (_event_store_client_Empty | null);
  'expected_stream_revision'?: "revision"|"no_stream"|"any"|"stream_exists";
}

export interface _event_store_client_streams_TombstoneReq_Options__Output {
  'stream_identifier': (_event_store_client_StreamIdentifier__Output | null);
  'revision'?: (string);
  'no_stream'?: (_event_store_client_Empty__Output | null);
  'any'?: (_event_store_client_Empty__Output | null);
  'stream_exists'?: (_event_store_client_Empty__Output | null);
  'expected_stream_revision'?: "revision"|"no_stream"|"any"|"stream_exists";
}

export interface TombstoneReq {
  'options'?: (_event_store_client_streams_TombstoneReq_Options | null);
}

export interface TombstoneReq__Output {
  'options': (_event_store_client_streams_TombstoneReq_Options__Output | null);
}
