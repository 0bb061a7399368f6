/**
 * grpc-js's server credentials for the RPC listener when grpc-js listens alone
 * (SERVICE_RPC_FAST_CARRIER=false). With TLS they follow the service's TLS material
 * (../tls/server-tls.ts) through grpc-js's public certificate-provider interface
 * (`grpc.experimental.createCertificateProviderServerCredentials`): each pair the material
 * reloads reaches grpc-js, which sets it on its servers with node's `setSecureContext`, so new
 * connections get the new certificate and open ones keep theirs, as on the fast carrier.
 */
import * as grpc from "@grpc/grpc-js";
import type { ServerTls, TlsPair } from "../tls/server-tls.js";

type IdentityListener = grpc.experimental.IdentityCertificateUpdateListener;

export function grpcServerCredentials(tls: ServerTls | null): grpc.ServerCredentials {
  if (tls === null) return grpc.ServerCredentials.createInsecure();
  const unsubscribes = new Map<IdentityListener, () => void>();
  const update = (pair: TlsPair) => ({ certificate: pair.cert, privateKey: pair.key });
  const provider: grpc.experimental.CertificateProvider = {
    // No client certificates: no CA to provide.
    addCaCertificateListener: () => undefined,
    removeCaCertificateListener: () => undefined,
    addIdentityCertificateListener(listener) {
      unsubscribes.set(
        listener,
        tls.onChange((pair) => listener(update(pair))),
      );
      // grpc-js adds its server's watcher only after this returns (server-credentials.ts,
      // _addWatcher): the first pair comes a microtask later, so that the watcher hears it and
      // sets it on the server before it takes connections.
      queueMicrotask(() => {
        if (unsubscribes.has(listener)) listener(update(tls.pair));
      });
    },
    removeIdentityCertificateListener(listener) {
      unsubscribes.get(listener)?.();
      unsubscribes.delete(listener);
    },
  };
  // grpc-js names this parameter caCertificateProvider but passes it on as the identity provider
  // (@grpc/grpc-js 1.14, server-credentials.ts); the second, the CA provider, is null: no client
  // certificates are asked for.
  return grpc.experimental.createCertificateProviderServerCredentials(provider, null, false);
}
