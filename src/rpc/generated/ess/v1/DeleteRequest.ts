// Original file: proto/ess/v1/streams.proto


export interface DeleteRequest {
  'stream_id'?: (string);
  'tenant'?: (string);
  'expected_revision'?: (string);
  'tombstone'?: (boolean);
  '_tenant'?: "tenant";
  '_expected_revision'?: "expected_revision";
  '_tombstone'?: "tombstone";
}

export interface DeleteRequest__Output {
  'stream_id': (string);
  'tenant'?: (string);
  'expected_revision'?: (string);
  'tombstone'?: (boolean);
  '_tenant'?: "tenant";
  '_expected_revision'?: "expected_revision";
  '_tombstone'?: "tombstone";
}
