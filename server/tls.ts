// HTTPS built in (contract §11): TLS_CERT_FILE and TLS_KEY_FILE (PEM) make the server listen with
// TLS, HTTPS and WSS on PORT. The files are read and checked once at start; a missing or
// unreadable file, one that is not PEM, or a key that does not belong to the certificate stops
// the start with a ConfigError naming the variable (main.ts prints it and exits 1).
import fs from 'node:fs';
import crypto from 'node:crypto';
import { ConfigError, type Config } from './config.js';

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
}

/** The certificate and key to serve with, or null when TLS is off (neither variable set). */
export function loadTlsFiles(config: Pick<Config, 'TLS_CERT_FILE' | 'TLS_KEY_FILE'>): TlsFiles | null {
  const certFile = config.TLS_CERT_FILE;
  const keyFile = config.TLS_KEY_FILE;
  if (!certFile || !keyFile) return null; // config.ts refuses one without the other
  const cert = readFile('TLS_CERT_FILE', certFile);
  const key = readFile('TLS_KEY_FILE', keyFile);

  let x509: crypto.X509Certificate;
  try {
    if (!cert.toString('latin1').includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM');
    x509 = new crypto.X509Certificate(cert);
  } catch {
    throw invalid('TLS_CERT_FILE', `${certFile} is not a PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  let privateKey: crypto.KeyObject;
  try {
    if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key.toString('latin1'))) throw new Error('no PEM');
    privateKey = crypto.createPrivateKey(key);
  } catch {
    throw invalid('TLS_KEY_FILE', `${keyFile} is not an unencrypted PEM private key (-----BEGIN PRIVATE KEY-----)`);
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw invalid('TLS_KEY_FILE', `${keyFile} is not the private key of the certificate in TLS_CERT_FILE`);
  }
  return { cert, key };
}

function readFile(variable: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : 'cannot be read';
    throw invalid(variable, `${file}: ${why}`);
  }
}

function invalid(variable: string, message: string): ConfigError {
  return new ConfigError([variable], `Invalid configuration:\n  ${variable}: ${message}`);
}
