// Original file: proto/ess/v1/streams.proto

import type { EventRecord as _ess_v1_EventRecord, EventRecord__Output as _ess_v1_EventRecord__Output } from '../../ess/v1/EventRecord.js';
import type { Long } from '@grpc/proto-loader';

export interface ReadAllResult {
  'events'?: (_ess_v1_EventRecord)[];
  'next_position'?: (number | string | Long);
  'is_end'?: (boolean);
  '_next_position'?: "next_position";
}

export interface ReadAllResult__Output {
  'events': (_ess_v1_EventRecord__Output)[];
  'next_position'?: (number);
  'is_end': (boolean);
  '_next_position'?: "next_position";
}
