// Original file: proto/ess/v1/streams.proto


export interface SetMetadataRequest {
  'stream_id'?: (string);
  'tenant'?: (string);
  'metadata'?: (Buffer | Uint8Array | string);
  'expected_metadata_revision'?: (string);
  '_tenant'?: "tenant";
  '_expected_metadata_revision'?: "expected_metadata_revision";
}

export interface SetMetadataRequest__Output {
  'stream_id': (string);
  'tenant'?: (string);
  'metadata': (Buffer);
  'expected_metadata_revision'?: (string);
  '_tenant'?: "tenant";
  '_expected_metadata_revision'?: "expected_metadata_revision";
}
