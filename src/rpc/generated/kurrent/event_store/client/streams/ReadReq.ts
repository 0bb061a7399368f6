// Original file: proto/kurrent/streams.proto

import type { Empty as _event_store_client_Empty, Empty__Output as _event_store_client_Empty__Output } from '../../../event_store/client/Empty.js';
import type { StreamIdentifier as _event_store_client_StreamIdentifier, StreamIdentifier__Output as _event_store_client_StreamIdentifier__Output } from '../../../event_store/client/StreamIdentifier.js';
import type { Long } from '@grpc/proto-loader';

export interface _event_store_client_streams_ReadReq_Options_AllOptions {
  'position'?: (_event_store_client_streams_ReadReq_Options_Position | null);
  'start'?: (_event_store_client_Empty | null);
  'end'?: (_event_store_client_Empty | null);
  'all_option'?: "position"|"start"|"end";
}

export interface _event_store_client_streams_ReadReq_Options_AllOptions__Output {
  'position'?: (_event_store_client_streams_ReadReq_Options_Position__Output | null);
  'start'?: (_event_store_client_Empty__Output | null);
  'end'?: (_event_store_client_Empty__Output | null);
  'all_option'?: "position"|"start"|"end";
}

export interface _event_store_client_streams_ReadReq_Options_ControlOption {
  'compatibility'?: (number);
}

export interface _event_store_client_streams_ReadReq_Options_ControlOption__Output {
  'compatibility': (number);
}

export interface _event_store_client_streams_ReadReq_Options_FilterOptions_Expression {
  'regex'?: (string);
  'prefix'?: (string)[];
}

export interface _event_store_client_streams_ReadReq_Options_FilterOptions_Expression__Output {
  'regex': (string);
  'prefix': (string)[];
}

export interface _event_store_client_streams_ReadReq_Options_FilterOptions {
  'stream_identifier'?: (_event_store_client_streams_ReadReq_Options_FilterOptions_Expression | null);
  'event_type'?: (_event_store_client_streams_ReadReq_Options_FilterOptions_Expression | null);
  'max'?: (number);
  'count'?: (_event_store_client_Empty | null);
  'checkpointIntervalMultiplier'?: (number);
  'filter'?: "stream_identifier"|"event_type";
  'window'?: "max"|"count";
}

export interface _event_store_client_streams_ReadReq_Options_FilterOptions__Output {
  'stream_identifier'?: (_event_store_client_streams_ReadReq_Options_FilterOptions_Expression__Output | null);
  'event_type'?: (_event_store_client_streams_ReadReq_Options_FilterOptions_Expression__Output | null);
  'max'?: (number);
  'count'?: (_event_store_client_Empty__Output | null);
  'checkpointIntervalMultiplier': (number);
  'filter'?: "stream_identifier"|"event_type";
  'window'?: "max"|"count";
}

export interface _event_store_client_streams_ReadReq_Options {
  'stream'?: (_event_store_client_streams_ReadReq_Options_StreamOptions | null);
  'all'?: (_event_store_client_streams_ReadReq_Options_AllOptions | null);
  'read_direction'?: (_event_store_client_streams_ReadReq_Options_ReadDirection);
  'resolve_links'?: (boolean);
  'count'?: (number | string | Long);
  'subscription'?: (_event_store_client_streams_ReadReq_Options_SubscriptionOptions | null);
  'filter'?: (_event_store_client_streams_ReadReq_Options_FilterOptions | null);
  'no_filter'?: (_event_store_client_Empty | null);
  'uuid_option'?: (_event_store_client_streams_ReadReq_Options_UUIDOption | null);
  'control_option'?: (_event_store_client_streams_ReadReq_Options_ControlOption | null);
  'stream_option'?: "stream"|"all";
  'count_option'?: "count"|"subscription";
  'filter_option'?: "filter"|"no_filter";
}

export interface _event_store_client_streams_ReadReq_Options__Output {
  'stream'?: (_event_store_client_streams_ReadReq_Options_StreamOptions__Output | null);
  'all'?: (_event_store_client_streams_ReadReq_Options_AllOptions__Output | null);
  'read_direction': (_event_store_client_streams_ReadReq_Options_ReadDirection__Output);
  'resolve_links': (boolean);
  'count'?: (string);
  'subscription'?: (_event_store_client_streams_ReadReq_Options_SubscriptionOptions__Output | null);
  'filter'?: (_event_store_client_streams_ReadReq_Options_FilterOptions__Output | null);
  'no_filter'?: (_event_store_client_Empty__Output | null);
  'uuid_option': (_event_store_client_streams_ReadReq_Options_UUIDOption__Output | null);
  'control_option': (_event_store_client_streams_ReadReq_Options_ControlOption__Output | null);
  'stream_option'?: "stream"|"all";
  'count_option'?: "count"|"subscription";
  'filter_option'?: "filter"|"no_filter";
}

export interface _event_store_client_streams_ReadReq_Options_Position {
  'commit_position'?: (number | string | Long);
  'prepare_position'?: (number | string | Long);
}

export interface _event_store_client_streams_ReadReq_Options_Position__Output {
  'commit_position': (string);
  'prepare_position': (string);
}

// Original file: proto/kurrent/streams.proto

export const _event_store_client_streams_ReadReq_Options_ReadDirection = {
  Forwards: 'Forwards',
  Backwards: 'Backwards',
} as const;

export type _event_store_client_streams_ReadReq_Options_ReadDirection =
  | 'Forwards'
  | 0
  | 'Backwards'
  | 1

export type _event_store_client_streams_ReadReq_Options_ReadDirection__Output = typeof _event_store_client_streams_ReadReq_Options_ReadDirection[keyof typeof _event_store_client_streams_ReadReq_Options_ReadDirection]

export interface _event_store_client_streams_ReadReq_Options_StreamOptions {
  'stream_identifier'?: (_event_store_client_StreamIdentifier | null);
  'revision'?: (number | string | Long);
  'start'?: (_event_store_client_Empty | null);
  'end'?: (_event_store_client_Empty | null);
  'revision_option'?: "revision"|"start"|"end";
}

export interface _event_store_client_streams_ReadReq_Options_StreamOptions__Output {
  'stream_identifier': (_event_store_client_StreamIdentifier__Output | null);
  'revision'?: (string);
  'start'?: (_event_store_client_Empty__Output | null);
  'end'?: (_event_store_client_Empty__Output | null);
  'revision_option'?: "revision"|"start"|"end";
}

export interface _event_store_client_streams_ReadReq_Options_SubscriptionOptions {
}

export interface _event_store_client_streams_ReadReq_Options_SubscriptionOptions__Output {
}

export interface _event_store_client_streams_ReadReq_Options_UUIDOption {
  'structured'?: (_event_store_client_Empty | null);
  'string'?: (_event_store_client_Empty | null);
  'content'?: "structured"|"string";
}

export interface _event_store_client_streams_ReadReq_Options_UUIDOption__Output {
  'structured'?: (_event_store_client_Empty__Output | null);
  'string'?: (_event_store_client_Empty__Output | null);
  'content'?: "structured"|"string";
}

export interface ReadReq {
  'options'?: (_event_store_client_streams_ReadReq_Options | null);
}

export interface ReadReq__Output {
  'options': (_event_store_client_streams_ReadReq_Options__Output | null);
}
