// Original file: proto/ess/v1/streams.proto

import type { EventToAppend as _ess_v1_EventToAppend, EventToAppend__Output as _ess_v1_EventToAppend__Output } from '../../ess/v1/EventToAppend.js';

export interface AppendRequest {
  'stream_id'?: (string);
  'tenant'?: (string);
  'events'?: (_ess_v1_EventToAppend)[];
  'expected_revision'?: (string);
  '_tenant'?: "tenant";
  '_expected_revision'?: "expected_revision";
}

export interface AppendRequest__Output {
  'stream_id': (string);
  'tenant'?: (string);
  'events': (_ess_v1_EventToAppend__Output)[];
  'expected_revision'?: (string);
  '_tenant'?: "tenant";
  '_expected_revision'?: "expected_revision";
}
