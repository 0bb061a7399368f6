import type * as grpc from '@grpc/grpc-js';
import type { MessageTypeDefinition } from '@grpc/proto-loader';

import type { AccessDenied as _event_store_client_AccessDenied, AccessDenied__Output as _event_store_client_AccessDenied__Output } from './event_store/client/AccessDenied.js';
import type { AllStreamPosition as _event_store_client_AllStreamPosition, AllStreamPosition__Output as _event_store_client_AllStreamPosition__Output } from './event_store/client/AllStreamPosition.js';
import type { BadRequest as _event_store_client_BadRequest, BadRequest__Output as _event_store_client_BadRequest__Output } from './event_store/client/BadRequest.js';
import type { Empty as _event_store_client_Empty, Empty__Output as _event_store_client_Empty__Output } from './event_store/client/Empty.js';
import type { InvalidTransaction as _event_store_client_InvalidTransaction, InvalidTransaction__Output as _event_store_client_InvalidTransaction__Output } from './event_store/client/InvalidTransaction.js';
import type { MaximumAppendSizeExceeded as _event_store_client_MaximumAppendSizeExceeded, MaximumAppendSizeExceeded__Output as _event_store_client_MaximumAppendSizeExceeded__Output } from './event_store/client/MaximumAppendSizeExceeded.js';
import type { StreamDeleted as _event_store_client_StreamDeleted, StreamDeleted__Output as _event_store_client_StreamDeleted__Output } from './event_store/client/StreamDeleted.js';
import type { StreamIdentifier as _event_store_client_StreamIdentifier, StreamIdentifier__Output as _event_store_client_StreamIdentifier__Output } from './event_store/client/StreamIdentifier.js';
import type { Timeout as _event_store_client_Timeout, Timeout__Output as _event_store_client_Timeout__Output } from './event_store/client/Timeout.js';
import type { UUID as _event_store_client_UUID, UUID__Output as _event_store_client_UUID__Output } from './event_store/client/UUID.js';
import type { Unknown as _event_store_client_Unknown, Unknown__Output as _event_store_client_Unknown__Output } from './event_store/client/Unknown.js';
import type { WrongExpectedVersion as _event_store_client_WrongExpectedVersion, WrongExpectedVersion__Output as _event_store_client_WrongExpectedVersion__Output } from './event_store/client/WrongExpectedVersion.js';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  event_store: {
    client: {
      AccessDenied: MessageTypeDefinition<_event_store_client_AccessDenied, _event_store_client_AccessDenied__Output>
      AllStreamPosition: MessageTypeDefinition<_event_store_client_AllStreamPosition, _event_store_client_AllStreamPosition__Output>
      BadRequest: MessageTypeDefinition<_event_store_client_BadRequest, _event_store_client_BadRequest__Output>
      Empty: MessageTypeDefinition<_event_store_client_Empty, _event_store_client_Empty__Output>
      InvalidTransaction: MessageTypeDefinition<_event_store_client_InvalidTransaction, _event_store_client_InvalidTransaction__Output>
      MaximumAppendSizeExceeded: MessageTypeDefinition<_event_store_client_MaximumAppendSizeExceeded, _event_store_client_MaximumAppendSizeExceeded__Output>
      StreamDeleted: MessageTypeDefinition<_event_store_client_StreamDeleted, _event_store_client_StreamDeleted__Output>
      StreamIdentifier: MessageTypeDefinition<_event_store_client_StreamIdentifier, _event_store_client_StreamIdentifier__Output>
      Timeout: MessageTypeDefinition<_event_store_client_Timeout, _event_store_client_Timeout__Output>
      UUID: MessageTypeDefinition<_event_store_client_UUID, _event_store_client_UUID__Output>
      Unknown: MessageTypeDefinition<_event_store_client_Unknown, _event_store_client_Unknown__Output>
      WrongExpectedVersion: MessageTypeDefinition<_event_store_client_WrongExpectedVersion, _event_store_client_WrongExpectedVersion__Output>
    }
  }
}

