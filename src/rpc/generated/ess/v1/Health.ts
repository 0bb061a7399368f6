// Original file: proto/ess/v1/health.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { CheckRequest as _ess_v1_CheckRequest, CheckRequest__Output as _ess_v1_CheckRequest__Output } from '../../ess/v1/CheckRequest.js';
import type { HealthResult as _ess_v1_HealthResult, HealthResult__Output as _ess_v1_HealthResult__Output } from '../../ess/v1/HealthResult.js';

export interface HealthClient extends grpc.Client {
  Check(argument: _ess_v1_CheckRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_HealthResult__Output>): grpc.ClientUnaryCall;
  Check(argument: _ess_v1_CheckRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_HealthResult__Output>): grpc.ClientUnaryCall;
  Check(argument: _ess_v1_CheckRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_HealthResult__Output>): grpc.ClientUnaryCall;
  Check(argument: _ess_v1_CheckRequest, callback: grpc.requestCallback<_ess_v1_HealthResult__Output>): grpc.ClientUnaryCall;
  check(argument: _ess_v1_CheckRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_HealthResult__Output>): grpc.ClientUnaryCall;
  check(argument: _ess_v1_CheckRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_HealthResult__Output>): grpc.ClientUnaryCall;
  check(argument: _ess_v1_CheckRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_HealthResult__Output>): grpc.ClientUnaryCall;
  check(argument: _ess_v1_CheckRequest, callback: grpc.requestCallback<_ess_v1_HealthResult__Output>): grpc.ClientUnaryCall;
  
}

export interface HealthHandlers extends grpc.UntypedServiceImplementation {
  Check: grpc.handleUnaryCall<_ess_v1_CheckRequest__Output, _ess_v1_HealthResult>;
  
}

export interface HealthDefinition extends grpc.ServiceDefinition {
  Check: MethodDefinition<_ess_v1_CheckRequest, _ess_v1_HealthResult, _ess_v1_CheckRequest__Output, _ess_v1_HealthResult__Output>
}
