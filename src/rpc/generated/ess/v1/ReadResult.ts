// Original file: proto/ess/v1/streams.proto

import type { EventRecord as _ess_v1_EventRecord, EventRecord__Output as _ess_v1_EventRecord__Output } from '../../ess/v1/EventRecord.js';
import type { Long } from '@grpc/proto-loader';

export interface ReadResult {
  'stream_id'?: (string);
  'direction'?: (string);
  'events'?: (_ess_v1_EventRecord)[];
  'next_revision'?: (number | string | Long);
  'is_end'?: (boolean);
  '_next_revision'?: "next_revision";
}

export interface ReadResult__Output {
  'stream_id': (string);
  'direction': (string);
  'events': (_ess_v1_EventRecord__Output)[];
  'next_revision'?: (number);
  'is_end': (boolean);
  '_next_revision'?: "next_revision";
}
