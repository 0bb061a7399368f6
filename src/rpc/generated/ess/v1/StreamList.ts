// Original file: proto/ess/v1/types.proto

import type { StreamSummary as _ess_v1_StreamSummary, StreamSummary__Output as _ess_v1_StreamSummary__Output } from '../../ess/v1/StreamSummary.js';

export interface StreamList {
  'streams'?: (_ess_v1_StreamSummary)[];
  'next_cursor'?: (string);
  '_next_cursor'?: "next_cursor";
}

export interface StreamList__Output {
  'streams': (_ess_v1_StreamSummary__Output)[];
  'next_cursor'?: (string);
  '_next_cursor'?: "next_cursor";
}
