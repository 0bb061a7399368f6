// Original file: proto/ess/v1/types.proto

import type { Long } from '@grpc/proto-loader';

export interface EventRecord {
  'stream_id'?: (string);
  'revision'?: (number | string | Long);
  'position'?: (number | string | Long);
  'event_id'?: (string);
  'event_type'?: (string);
  'data'?: (Buffer | Uint8Array | string);
  'metadata'?: (Buffer | Uint8Array | string);
  'created_at'?: (string);
  'content_type'?: (string);
  'metadata_bytes'?: (Buffer | Uint8Array | string);
  '_metadata_bytes'?: "metadata_bytes";
}

export interface EventRecord__Output {
  'stream_id': (string);
  'revision': (number);
  'position': (number);
  'event_id': (string);
  'event_type': (string);
  'data': (Buffer);
  'metadata': (Buffer);
  'created_at': (string);
  'content_type': (string);
  'metadata_bytes'?: (Buffer);
  '_metadata_bytes'?: "metadata_bytes";
}
