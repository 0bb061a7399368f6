// Original file: proto/kurrent/streams.proto

import type { Empty as _event_store_client_Empty, Empty__Output as _event_store_client_Empty__Output } from '../../../event_store/client/Empty.js';
import type { Long } from '@grpc/proto-loader';

export interface _event_store_client_streams_TombstoneResp_Position {
  'commit_position'?: (number | string | Long);
  'prepare_position'?: (number | string | Long);
}

export interface _event_store_client_streams_TombstoneResp_Position__Output {
  'commit_position': (string);
  'prepare_position': (string);
}

export interface TombstoneResp {
  'position'?: (_event_store_client_streams_TombstoneResp_Position | null);
  'no_position'?: (_event_store_client_Empty | null);
  'position_option'?: "position"|"no_position";
}

export interface TombstoneResp__Output {
  'position'?: (_event_store_client_streams_TombstoneResp_Position__Output | null);
  'no_position'?: (_event_store_client_Empty__Output | null);
  'position_option'?: "position"|"no_position";
}
