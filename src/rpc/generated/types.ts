import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { EventRecord as _ess_v1_EventRecord, EventRecord__Output as _ess_v1_EventRecord__Output } from './ess/v1/EventRecord.js';
import type { Retention as _ess_v1_Retention, Retention__Output as _ess_v1_Retention__Output } from './ess/v1/Retention.js';
import type { StreamInfo as _ess_v1_StreamInfo, StreamInfo__Output as _ess_v1_StreamInfo__Output } from './ess/v1/StreamInfo.js';
import type { StreamList as _ess_v1_StreamList, StreamList__Output as _ess_v1_StreamList__Output } from './ess/v1/StreamList.js';
import type { StreamSummary as _ess_v1_StreamSummary, StreamSummary__Output as _ess_v1_StreamSummary__Output } from './ess/v1/StreamSummary.js';
import type { User as _ess_v1_User, User__Output as _ess_v1_User__Output } from './ess/v1/User.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  ess: {
    v1: {
      EventRecord: MessageTypeDefinition<_ess_v1_EventRecord, _ess_v1_EventRecord__Output>
      Retention: MessageTypeDefinition<_ess_v1_Retention, _ess_v1_Retention__Output>
      StreamInfo: MessageTypeDefinition<_ess_v1_StreamInfo, _ess_v1_StreamInfo__Output>
      StreamList: MessageTypeDefinition<_ess_v1_StreamList, _ess_v1_StreamList__Output>
      StreamSummary: MessageTypeDefinition<_ess_v1_StreamSummary, _ess_v1_StreamSummary__Output>
      User: MessageTypeDefinition<_ess_v1_User, _ess_v1_User__Output>
    }
  }
}

