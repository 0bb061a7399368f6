// Original file: proto/kurrent/streams.proto

import type { Empty as _event_store_client_Empty, Empty__Output as _event_store_client_Empty__Output } from '../../../event_store/client/Empty.js';
import type { Long } from '@grpc/proto-loader';

export interface _event_store_client_streams_AppendResp_Position {
  'commit_position'?: (number | string | Long);
  'prepare_position'?: (number | string | Long);
}

export interface _event_store_client_streams_AppendResp_Position__Output {
  'commit_position': (string);
  'prepare_position': (string);
}

export interface _event_store_client_streams_AppendResp_Success {
  'current_revision'?: (number | string | Long);
  'no_stream'?: (_event_store_client_Empty | null);
  'position'?: (_event_store_client_streams_AppendResp_Position | null);
  'no_position'?: (_event_store_client_Empty | null);
  'current_revision_option'?: "current_revision"|"no_stream";
  'position_option'?: "position"|"no_position";
}

export interface _event_store_client_streams_AppendResp_Success__Output {
  'current_revision'?: (string);
  'no_stream'?: (_event_store_client_Empty__Output | null);
  'position'?: (_event_store_client_streams_AppendResp_Position__Output | null);
  'no_position'?: (_event_store_client_Empty__Output | null);
  'current_revision_option'?: "current_revision"|"no_stream";
  'position_option'?: "position"|"no_position";
}

export interface _event_store_client_streams_AppendResp_WrongExpectedVersion {
  'current_revision_20_6_0'?: (number | string | Long);
  'no_stream_20_6_0'?: (_event_store_client_Empty | null);
  'expected_revision_20_6_0'?: (number | string | Long);
  'any_20_6_0'?: (_event_store_client_Empty | null);
  'stream_exists_20_6_0'?: (_event_store_client_Empty | null);
  'current_revision'?: (number | string | Long);
  'current_no_stream'?: (_event_store_client_Empty | null);
  'expected_revision'?: (number | string | Long);
  'expected_any'?: (_event_store_client_Empty | null);
  'expected_stream_exists'?: (_event_store_client_Empty | null);
  'expected_no_stream'?: (_event_store_client_Empty | null);
  'current_revision_option_20_6_0'?: "current_revision_20_6_0"|"no_stream_20_6_0";
  'expected_revision_option_20_6_0'?: "expected_revision_20_6_0"|"any_20_6_0"|"stream_exists_20_6_0";
  'current_revision_option'?: "current_revision"|"current_no_stream";
  'expected_revision_option'?: "expected_revision"|"expected_any"|"expected_stream_exists"|"expected_no_stream";
}

export interface _event_store_client_streams_AppendResp_WrongExpectedVersion__Output {
  'current_revision_20_6_0'?: (string);
  'no_stream_20_6_0'?: (_event_store_client_Empty__Output | null);
  'expected_revision_20_6_0'?: (string);
  'any_20_6_0'?: (_event_store_client_Empty__Output | null);
  'stream_exists_20_6_0'?: (_event_store_client_Empty__Output | null);
  'current_revision'?: (string);
  'current_no_stream'?: (_event_store_client_Empty__Output | null);
  'expected_revision'?: (string);
  'expected_any'?: (_event_store_client_Empty__Output | null);
  'expected_stream_exists'?: (_event_store_client_Empty__Output | null);
  'expected_no_stream'?: (_event_store_client_Empty__Output | null);
  'current_revision_option_20_6_0'?: "current_revision_20_6_0"|"no_stream_20_6_0";
  'expected_revision_option_20_6_0'?: "expected_revision_20_6_0"|"any_20_6_0"|"stream_exists_20_6_0";
  'current_revision_option'?: "current_revision"|"current_no_stream";
  'expected_revision_option'?: "expected_revision"|"expected_any"|"expected_stream_exists"|"expected_no_stream";
}

export interface AppendResp {
  'success'?: (_event_store_client_streams_AppendResp_Success | null);
  'wrong_expected_version'?: (_event_store_client_streams_AppendResp_WrongExpectedVersion | null);
  'result'?: "success"|"wrong_expected_version";
}

export interface AppendResp__Output {
  'success'?: (_event_store_client_streams_AppendResp_Success__Output | null);
  'wrong_expected_version'?: (_event_store_client_streams_AppendResp_WrongExpectedVersion__Output | null);
  'result'?: "success"|"wrong_expected_version";
}
