// Original file: proto/kurrent/shared.proto

import type { Empty as _event_store_client_Empty, Empty__Output as _event_store_client_Empty__Output } from '../../event_store/client/Empty.js';
import type { Long } from '@grpc/proto-loader';

export interface WrongExpectedVersion {
  'current_stream_revision'?: (number | string | Long);
  'current_no_stream'?: (_event_store_client_Empty | null);
  'expected_stream_position'?: (number | string | Long);
  'expected_any'?: (_event_store_client_Empty | null);
  'expected_stream_exists'?: (_event_store_client_Empty | null);
  'expected_no_stream'?: (_event_store_client_Empty | null);
  'current_stream_revision_option'?: "current_stream_revision"|"current_no_stream";
  'expected_stream_position_option'?: "expected_stream_position"|"expected_any"|"expected_stream_exists"|"expected_no_stream";
}

export interface WrongExpectedVersion__Output {
  'current_stream_revision'?: (string);
  'current_no_stream'?: (_event_store_client_Empty__Output | null);
  'expected_stream_position'?: (string);
  'expected_any'?: (_event_store_client_Empty__Output | null);
  'expected_stream_exists'?: (_event_store_client_Empty__Output | null);
  'expected_no_stream'?: (_event_store_client_Empty__Output | null);
  'current_stream_revision_option'?: "current_stream_revision"|"current_no_stream";
  'expected_stream_position_option'?: "expected_stream_position"|"expected_any"|"expected_stream_exists"|"expected_no_stream";
}
