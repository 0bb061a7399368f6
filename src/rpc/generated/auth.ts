import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AuthClient as _ess_v1_AuthClient, AuthDefinition as _ess_v1_AuthDefinition } from './ess/v1/Auth.js';
import type { LoginRequest as _ess_v1_LoginRequest, LoginRequest__Output as _ess_v1_LoginRequest__Output } from './ess/v1/LoginRequest.js';
import type { LoginResult as _ess_v1_LoginResult, LoginResult__Output as _ess_v1_LoginResult__Output } from './ess/v1/LoginResult.js';
import type { WhoAmIRequest as _ess_v1_WhoAmIRequest, WhoAmIRequest__Output as _ess_v1_WhoAmIRequest__Output } from './ess/v1/WhoAmIRequest.js';
import type { WhoAmIResult as _ess_v1_WhoAmIResult, WhoAmIResult__Output as _ess_v1_WhoAmIResult__Output } from './ess/v1/WhoAmIResult.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  ess: {
    v1: {
      Auth: SubtypeConstructor<typeof grpc.Client, _ess_v1_AuthClient> & { service: _ess_v1_AuthDefinition }
      LoginRequest: MessageTypeDefinition<_ess_v1_LoginRequest, _ess_v1_LoginRequest__Output>
      LoginResult: MessageTypeDefinition<_ess_v1_LoginResult, _ess_v1_LoginResult__Output>
      WhoAmIRequest: MessageTypeDefinition<_ess_v1_WhoAmIRequest, _ess_v1_WhoAmIRequest__Output>
      WhoAmIResult: MessageTypeDefinition<_ess_v1_WhoAmIResult, _ess_v1_WhoAmIResult__Output>
    }
  }
}

