/**
 * The server side's TLS material (SERVICE_TLS_CERT_FILE, SERVICE_TLS_KEY_FILE; docs/operations.md,
 * "TLS"): one certificate chain and its private key, read from PEM files, checked, and handed to
 * every listener that serves TLS (RPC, REST, WebSocket; any later one takes it the same way).
 *
 * - Loading checks what a listener would otherwise find only at its first handshake: each file is
 *   readable and PEM, the certificate (and every certificate of the chain) parses, the key parses
 *   and is not encrypted, the key is the certificate's, and node's TLS accepts the pair. A failure
 *   is a ConfigError naming the setting at fault.
 * - `reload` reads the pair again (SIGHUP): a good new pair replaces the old one for every
 *   listener that `follow`s this (node's `setSecureContext`: new connections get the new
 *   certificate, open ones keep theirs); a bad one throws and the old pair stays.
 */
import { X509Certificate, createPrivateKey, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { createSecureContext, type SecureContextOptions } from "node:tls";
import { ConfigError } from "../config/config.js";
import type { Logger } from "../logger.js";

export const tlsCertSetting = "SERVICE_TLS_CERT_FILE";
export const tlsKeySetting = "SERVICE_TLS_KEY_FILE";

/** Where the pair is read from. */
export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

/** One checked pair, as PEM bytes. */
export interface TlsPair {
  cert: Buffer;
  key: Buffer;
  /** SHA-256 fingerprint of the leaf certificate, as node's X509Certificate writes it (AA:BB:...). */
  fingerprint256: string;
  /** The leaf certificate's expiry, as X509Certificate writes it. */
  validTo: string;
}

/** A server whose certificate can change under it (node's tls, https and http2 secure servers). */
export interface SecureContextHolder {
  setSecureContext(options: SecureContextOptions): void;
  once(event: "close", listener: () => void): unknown;
}

const certificateBlock = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Reads and checks the pair; a ConfigError names the setting at fault. */
export function readTlsPair(files: TlsFiles): TlsPair {
  const cert = readPem(tlsCertSetting, files.certFile);
  const key = readPem(tlsKeySetting, files.keyFile);
  const blocks = cert.toString("latin1").match(certificateBlock) ?? [];
  if (blocks.length === 0) {
    throw new ConfigError(tlsCertSetting, `${files.certFile} holds no PEM certificate (BEGIN CERTIFICATE)`);
  }
  const chain = blocks.map((block) => {
    try {
      return new X509Certificate(block);
    } catch (error) {
      throw new ConfigError(
        tlsCertSetting,
        `${files.certFile}: a certificate does not parse: ${reason(error)}`,
      );
    }
  });
  const leaf = chain[0];
  const privateKey = parseKey(files.keyFile, key);
  if (leaf === undefined || !leaf.checkPrivateKey(privateKey)) {
    throw new ConfigError(
      tlsKeySetting,
      `the key in ${files.keyFile} does not match the certificate in ${files.certFile} (${tlsCertSetting})`,
    );
  }
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    throw new ConfigError(tlsKeySetting, `node's TLS refuses the pair: ${reason(error)}`);
  }
  return { cert, key, fingerprint256: leaf.fingerprint256, validTo: leaf.validTo };
}

function readPem(setting: string, file: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(setting, `cannot read ${file}${code ? ` (${code})` : ""}`);
  }
  if (!bytes.toString("latin1").includes("-----BEGIN ")) {
    throw new ConfigError(setting, `${file} is not a PEM file (no -----BEGIN line)`);
  }
  return bytes;
}

function parseKey(file: string, key: Buffer): KeyObject {
  const text = key.toString("latin1");
  if (text.includes("-----BEGIN ENCRYPTED PRIVATE KEY-----") || /Proc-Type: 4,ENCRYPTED/.test(text)) {
    throw new ConfigError(tlsKeySetting, `${file} is an encrypted private key; give it unencrypted`);
  }
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(text)) {
    throw new ConfigError(tlsKeySetting, `${file} holds no PEM private key (BEGIN ... PRIVATE KEY)`);
  }
  try {
    return createPrivateKey(key);
  } catch (error) {
    throw new ConfigError(tlsKeySetting, `${file}: the private key does not parse: ${reason(error)}`);
  }
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The pair every TLS listener serves, and the listeners that follow its reloads. */
export class ServerTls {
  private readonly listeners = new Set<(pair: TlsPair) => void>();

  private constructor(
    readonly files: TlsFiles,
    private current: TlsPair,
  ) {}

  /** Reads and checks the pair (a ConfigError naming the setting when it is bad). */
  static load(files: TlsFiles): ServerTls {
    return new ServerTls(files, readTlsPair(files));
  }

  get pair(): TlsPair {
    return this.current;
  }

  /** The options a node TLS server (tls, https, http2) is created with. */
  contextOptions(): SecureContextOptions {
    return { cert: this.current.cert, key: this.current.key };
  }

  /**
   * Reads the files again. A good pair becomes the current one and every follower gets it; a bad
   * one throws its ConfigError and the current pair stays.
   */
  reload(): TlsPair {
    const pair = readTlsPair(this.files);
    this.current = pair;
    for (const listener of [...this.listeners]) listener(pair);
    return pair;
  }

  /** Calls `listener` with each new pair; returns the unsubscribe. */
  onChange(listener: (pair: TlsPair) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Gives `server` each new pair (for its new connections) until it closes. */
  follow(server: SecureContextHolder): void {
    const stop = this.onChange((pair) => server.setSecureContext({ cert: pair.cert, key: pair.key }));
    server.once("close", stop);
  }
}

/**
 * SIGHUP's work: reloads `tls` and logs the outcome (the new pair's fingerprint, or why the old
 * pair stays). Returns whether a new pair is in place; false too when TLS is off.
 */
export function reloadTlsLogged(tls: ServerTls | null, logger: Logger): boolean {
  if (tls === null) {
    logger.warn("tls reload asked for, but TLS is off (SERVICE_TLS_CERT_FILE is not set)");
    return false;
  }
  try {
    const pair = tls.reload();
    logger.info("tls certificate reloaded", {
      tls_fingerprint256: pair.fingerprint256,
      valid_to: pair.validTo,
    });
    return true;
  } catch (error) {
    logger.error("tls reload failed; the listeners keep the certificate they had", {
      error: reason(error),
      tls_fingerprint256: tls.pair.fingerprint256,
    });
    return false;
  }
}
