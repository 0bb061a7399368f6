// Original file: proto/ess/v1/streams.proto

import type { Long } from '@grpc/proto-loader';

export interface StreamMetadata {
  'stream_id'?: (string);
  'metadata_revision'?: (number | string | Long);
  'metadata'?: (Buffer | Uint8Array | string);
  '_metadata_revision'?: "metadata_revision";
}

export interface StreamMetadata__Output {
  'stream_id': (string);
  'metadata_revision'?: (number);
  'metadata': (Buffer);
  '_metadata_revision'?: "metadata_revision";
}
