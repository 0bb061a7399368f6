import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { CheckRequest as _ess_v1_CheckRequest, CheckRequest__Output as _ess_v1_CheckRequest__Output } from './ess/v1/CheckRequest.js';
import type { HealthClient as _ess_v1_HealthClient, HealthDefinition as _ess_v1_HealthDefinition } from './ess/v1/Health.js';
import type { HealthResult as _ess_v1_HealthResult, HealthResult__Output as _ess_v1_HealthResult__Output } from './ess/v1/HealthResult.js';
import type { StorageHealth as _ess_v1_StorageHealth, StorageHealth__Output as _ess_v1_StorageHealth__Output } from './ess/v1/StorageHealth.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  ess: {
    v1: {
      CheckRequest: MessageTypeDefinition<_ess_v1_CheckRequest, _ess_v1_CheckRequest__Output>
      Health: SubtypeConstructor<typeof grpc.Client, _ess_v1_HealthClient> & { service: _ess_v1_HealthDefinition }
      HealthResult: MessageTypeDefinition<_ess_v1_HealthResult, _ess_v1_HealthResult__Output>
      StorageHealth: MessageTypeDefinition<_ess_v1_StorageHealth, _ess_v1_StorageHealth__Output>
    }
  }
}

