// Original file: proto/ess/v1/streams.proto

import type { EventRecord as _ess_v1_EventRecord, EventRecord__Output as _ess_v1_EventRecord__Output } from '../../ess/v1/EventRecord.js';
import type { CaughtUp as _ess_v1_CaughtUp, CaughtUp__Output as _ess_v1_CaughtUp__Output } from '../../ess/v1/CaughtUp.js';
import type { Checkpoint as _ess_v1_Checkpoint, Checkpoint__Output as _ess_v1_Checkpoint__Output } from '../../ess/v1/Checkpoint.js';

export interface SubscribeResponse {
  'event'?: (_ess_v1_EventRecord | null);
  'caught_up'?: (_ess_v1_CaughtUp | null);
  'checkpoint'?: (_ess_v1_Checkpoint | null);
  'message'?: "event"|"caught_up"|"checkpoint";
}

export interface SubscribeResponse__Output {
  'event'?: (_ess_v1_EventRecord__Output | null);
  'caught_up'?: (_ess_v1_CaughtUp__Output | null);
  'checkpoint'?: (_ess_v1_Checkpoint__Output | null);
  'message'?: "event"|"caught_up"|"checkpoint";
}
