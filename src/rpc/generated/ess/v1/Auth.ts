// Original file: proto/ess/v1/auth.proto

import type * as grpc from '@grpc/grpc-js'
import type { MethodDefinition } from '@grpc/proto-loader'
import type { LoginRequest as _ess_v1_LoginRequest, LoginRequest__Output as _ess_v1_LoginRequest__Output } from '../../ess/v1/LoginRequest.js';
import type { LoginResult as _ess_v1_LoginResult, LoginResult__Output as _ess_v1_LoginResult__Output } from '../../ess/v1/LoginResult.js';
import type { WhoAmIRequest as _ess_v1_WhoAmIRequest, WhoAmIRequest__Output as _ess_v1_WhoAmIRequest__Output } from '../../ess/v1/WhoAmIRequest.js';
import type { WhoAmIResult as _ess_v1_WhoAmIResult, WhoAmIResult__Output as _ess_v1_WhoAmIResult__Output } from '../../ess/v1/WhoAmIResult.js';

export interface AuthClient extends grpc.Client {
  Login(argument: _ess_v1_LoginRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_LoginResult__Output>): grpc.ClientUnaryCall;
  Login(argument: _ess_v1_LoginRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_LoginResult__Output>): grpc.ClientUnaryCall;
  Login(argument: _ess_v1_LoginRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_LoginResult__Output>): grpc.ClientUnaryCall;
  Login(argument: _ess_v1_LoginRequest, callback: grpc.requestCallback<_ess_v1_LoginResult__Output>): grpc.ClientUnaryCall;
  login(argument: _ess_v1_LoginRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_LoginResult__Output>): grpc.ClientUnaryCall;
  login(argument: _ess_v1_LoginRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_LoginResult__Output>): grpc.ClientUnaryCall;
  login(argument: _ess_v1_LoginRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_LoginResult__Output>): grpc.ClientUnaryCall;
  login(argument: _ess_v1_LoginRequest, callback: grpc.requestCallback<_ess_v1_LoginResult__Output>): grpc.ClientUnaryCall;
  
  WhoAmI(argument: _ess_v1_WhoAmIRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_WhoAmIResult__Output>): grpc.ClientUnaryCall;
  WhoAmI(argument: _ess_v1_WhoAmIRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_WhoAmIResult__Output>): grpc.ClientUnaryCall;
  WhoAmI(argument: _ess_v1_WhoAmIRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_WhoAmIResult__Output>): grpc.ClientUnaryCall;
  WhoAmI(argument: _ess_v1_WhoAmIRequest, callback: grpc.requestCallback<_ess_v1_WhoAmIResult__Output>): grpc.ClientUnaryCall;
  whoAmI(argument: _ess_v1_WhoAmIRequest, metadata: grpc.Metadata, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_WhoAmIResult__Output>): grpc.ClientUnaryCall;
  whoAmI(argument: _ess_v1_WhoAmIRequest, metadata: grpc.Metadata, callback: grpc.requestCallback<_ess_v1_WhoAmIResult__Output>): grpc.ClientUnaryCall;
  whoAmI(argument: _ess_v1_WhoAmIRequest, options: grpc.CallOptions, callback: grpc.requestCallback<_ess_v1_WhoAmIResult__Output>): grpc.ClientUnaryCall;
  whoAmI(argument: _ess_v1_WhoAmIRequest, callback: grpc.requestCallback<_ess_v1_WhoAmIResult__Output>): grpc.ClientUnaryCall;
  
}

export interface AuthHandlers extends grpc.UntypedServiceImplementation {
  Login: grpc.handleUnaryCall<_ess_v1_LoginRequest__Output, _ess_v1_LoginResult>;
  
  WhoAmI: grpc.handleUnaryCall<_ess_v1_WhoAmIRequest__Output, _ess_v1_WhoAmIResult>;
  
}

export interface AuthDefinition extends grpc.ServiceDefinition {
  Login: MethodDefinition<_ess_v1_LoginRequest, _ess_v1_LoginResult, _ess_v1_LoginRequest__Output, _ess_v1_LoginResult__Output>
  WhoAmI: MethodDefinition<_ess_v1_WhoAmIRequest, _ess_v1_WhoAmIResult, _ess_v1_WhoAmIRequest__Output, _ess_v1_WhoAmIResult__Output>
}
