// Original file: proto/ess/v1/admin.proto

import type { LastScavenge as _ess_v1_LastScavenge, LastScavenge__Output as _ess_v1_LastScavenge__Output } from '../../ess/v1/LastScavenge.js';
import type { SegmentStatus as _ess_v1_SegmentStatus, SegmentStatus__Output as _ess_v1_SegmentStatus__Output } from '../../ess/v1/SegmentStatus.js';
import type { WriterStatus as _ess_v1_WriterStatus, WriterStatus__Output as _ess_v1_WriterStatus__Output } from '../../ess/v1/WriterStatus.js';
import type { IndexStatus as _ess_v1_IndexStatus, IndexStatus__Output as _ess_v1_IndexStatus__Output } from '../../ess/v1/IndexStatus.js';
import type { TableStatus as _ess_v1_TableStatus, TableStatus__Output as _ess_v1_TableStatus__Output } from '../../ess/v1/TableStatus.js';
import type { PoolStatus as _ess_v1_PoolStatus, PoolStatus__Output as _ess_v1_PoolStatus__Output } from '../../ess/v1/PoolStatus.js';
import type { Long } from '@grpc/proto-loader';

export interface StorageStatus {
  'engine'?: (string);
  'events_total'?: (number | string | Long);
  'streams_total'?: (number | string | Long);
  'bytes_total'?: (number | string | Long);
  'last_position'?: (number | string | Long);
  'last_scavenge'?: (_ess_v1_LastScavenge | null);
  'data_dir'?: (string);
  'segments'?: (_ess_v1_SegmentStatus)[];
  'writer'?: (_ess_v1_WriterStatus | null);
  'index'?: (_ess_v1_IndexStatus | null);
  'tables'?: (_ess_v1_TableStatus)[];
  'pool'?: (_ess_v1_PoolStatus | null);
  '_last_scavenge'?: "last_scavenge";
  '_data_dir'?: "data_dir";
  '_writer'?: "writer";
  '_index'?: "index";
  '_pool'?: "pool";
}

export interface StorageStatus__Output {
  'engine': (string);
  'events_total': (number);
  'streams_total': (number);
  'bytes_total': (number);
  'last_position': (number);
  'last_scavenge'?: (_ess_v1_LastScavenge__Output | null);
  'data_dir'?: (string);
  'segments': (_ess_v1_SegmentStatus__Output)[];
  'writer'?: (_ess_v1_WriterStatus__Output | null);
  'index'?: (_ess_v1_IndexStatus__Output | null);
  'tables': (_ess_v1_TableStatus__Output)[];
  'pool'?: (_ess_v1_PoolStatus__Output | null);
  '_last_scavenge'?: "last_scavenge";
  '_data_dir'?: "data_dir";
  '_writer'?: "writer";
  '_index'?: "index";
  '_pool'?: "pool";
}
