// Original file: proto/ess/v1/streams.proto

import type { EventRecord as _ess_v1_EventRecord, EventRecord__Output as _ess_v1_EventRecord__Output } from '../../ess/v1/EventRecord.js';
import type { CaughtUp as _ess_v1_CaughtUp, CaughtUp__Output as _ess_v1_CaughtUp__Output } from '../../ess/v1/CaughtUp.js';

export interface SubscribeResponse {
  'event'?: (_ess_v1_EventRecord | null);
  'caught_up'?: (_ess_v1_CaughtUp | null);
  'message'?: "event"|"caught_up";
}

export interface SubscribeResponse__Output {
  'event'?: (_ess_v1_EventRecord__Output | null);
  'caught_up'?: (_ess_v1_CaughtUp__Output | null);
  'message'?: "event"|"caught_up";
}
