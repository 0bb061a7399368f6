// Original file: proto/kurrent/serverfeatures.proto

import type { SupportedMethod as _event_store_client_server_features_SupportedMethod, SupportedMethod__Output as _event_store_client_server_features_SupportedMethod__Output } from '../../../event_store/client/server_features/SupportedMethod.js';

export interface SupportedMethods {
  'methods'?: (_event_store_client_server_features_SupportedMethod)[];
  'event_store_server_version'?: (string);
}

export interface SupportedMethods__Output {
  'methods': (_event_store_client_server_features_SupportedMethod__Output)[];
  'event_store_server_version': (string);
}
