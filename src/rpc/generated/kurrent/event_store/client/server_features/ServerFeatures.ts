// Original file: proto/kurrent/serverfeatures.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { Empty as _event_store_client_Empty, Empty__Output as _event_store_client_Empty__Output } from '../../../event_store/client/Empty.js';
import type { SupportedMethods as _event_store_client_server_features_SupportedMethods, SupportedMethods__Output as _event_store_client_server_features_SupportedMethods__Output } from '../../../event_store/client/server_features/SupportedMethods.js';

export interface ServerFeaturesClient extends grpc.Client {
  GetSupportedMethods(argument: _event_store_client_Empty, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_server_features_SupportedMethods__Output>): grpc.ClientUnaryCall;
  GetSupportedMethods(argument: _event_store_client_Empty, metadata: grpc.Metadata, callback: grpc.requestCallback<_event_store_client_server_features_SupportedMethods__Output>): grpc.ClientUnaryCall;
  GetSupportedMethods(argument: _event_store_client_Empty, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_server_features_SupportedMethods__Output>): grpc.ClientUnaryCall;
  GetSupportedMethods(argument: _event_store_client_Empty, callback: grpc.requestCallback<_event_store_client_server_features_SupportedMethods__Output>): grpc.ClientUnaryCall;
  getSupportedMethods(argument: _event_store_client_Empty, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_server_features_SupportedMethods__Output>): grpc.ClientUnaryCall;
  getSupportedMethods(argument: _event_store_client_Empty, metadata: grpc.Metadata, callback: grpc.requestCallback<_event_store_client_server_features_SupportedMethods__Output>): grpc.ClientUnaryCall;
  getSupportedMethods(argument: _event_store_client_Empty, options: grpc.CallOptions, callback: grpc.requestCallback<_event_store_client_server_features_SupportedMethods__Output>): grpc.ClientUnaryCall;
  getSupportedMethods(argument: _event_store_client_Empty, callback: grpc.requestCallback<_event_store_client_server_features_SupportedMethods__Output>): grpc.ClientUnaryCall;
  
}

export interface ServerFeaturesHandlers extends grpc.UntypedServiceImplementation {
  GetSupportedMethods: grpc.handleUnaryCall<_event_store_client_Empty__Output, _event_store_client_server_features_SupportedMethods>;
  
}

export interface ServerFeaturesDefinition extends grpc.ServiceDefinition {
  GetSupportedMethods: MethodDefinition<_event_store_client_Empty, _event_store_client_server_features_SupportedMethods, _event_store_client_Empty__Output, _event_store_client_server_features_SupportedMethods__Output>
}
