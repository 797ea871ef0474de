/**
 * Certificate generation (@peculiar/x509 over Node's WebCrypto).
 *
 * Keys are ECDSA P-256 (SHA-256 signatures): accepted by every supported kube-apiserver (Go crypto/tls), and
 * generated in about a millisecond, so neither start-up nor rotation blocks the event loop (RSA 4096, YuniKorn's
 * choice, takes seconds). Private keys are PKCS#8 PEM (`PRIVATE KEY`).
 */
import "reflect-metadata";
import { webcrypto } from "node:crypto";
import { isIP } from "node:net";
import * as x509 from "@peculiar/x509";

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
/** Subject organisation of corral's certificates (YuniKorn uses `yunikorn.apache.org`). */
export const CERT_ORGANIZATION = "yunikorn.apache.org";

/** A certificate and its private key, PEM encoded. */
export interface KeyPairPem {
  /** PEM certificate. */
  certPem: string;
  /** PEM PKCS#8 private key. */
  keyPem: string;
}

/** A self-signed CA to create: its subject and validity window. */
export interface CaOptions {
  commonName?: string;
  notBefore: Date;
  notAfter: Date;
}

/** A serving certificate to issue from a CA: subject, subject alternative names and validity window. */
export interface ServerCertOptions {
  commonName: string;
  /** DNS names and IP addresses (IPv4 or IPv6), in any mix; empty entries are skipped. */
  sans: string[];
  notBefore: Date;
  notAfter: Date;
}

function serial(): string {
  const bytes = new Uint8Array(16);
  webcrypto.getRandomValues(bytes);
  bytes[0] = bytes[0]! & 0x7f; // positive
  return Buffer.from(bytes).toString("hex");
}

function toPem(der: ArrayBuffer, label: string): string {
  const b64 = Buffer.from(der)
    .toString("base64")
    .replace(/(.{64})/g, "$1\n")
    .replace(/\n$/, "");
  return `-----BEGIN ${label}-----\n${b64}\n-----END ${label}-----\n`;
}

async function exportKey(key: CryptoKey): Promise<string> {
  return toPem(await webcrypto.subtle.exportKey("pkcs8", key as webcrypto.CryptoKey), "PRIVATE KEY");
}

async function importKey(pem: string): Promise<CryptoKey> {
  const b64 = pem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
  return (await webcrypto.subtle.importKey("pkcs8", Buffer.from(b64, "base64"), ALG, true, ["sign"])) as unknown as CryptoKey;
}

const escapeDn = (v: string) => v.replace(/([,+"\\<>;=])/g, "\\$1");

/** A self-signed CA certificate and key. */
export async function generateCa(opts: CaOptions): Promise<KeyPairPem> {
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as unknown as CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${escapeDn(opts.commonName ?? "corral-ca")}, O=${CERT_ORGANIZATION}`,
    notBefore: opts.notBefore,
    notAfter: opts.notAfter,
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign | x509.KeyUsageFlags.digitalSignature, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString("pem") + "\n", keyPem: await exportKey(keys.privateKey) };
}

/** A server certificate for `sans` (DNS names and IPs), signed by `ca`. */
export async function generateServerCert(ca: KeyPairPem, opts: ServerCertOptions): Promise<KeyPairPem> {
  const caCert = new x509.X509Certificate(ca.certPem);
  const caKey = await importKey(ca.keyPem);
  const keys = (await webcrypto.subtle.generateKey(ALG, true, ["sign", "verify"])) as unknown as CryptoKeyPair;
  const names: x509.JsonGeneralName[] = opts.sans
    .filter((n) => n !== "")
    .map((value) => ({ type: isIP(value) ? ("ip" as const) : ("dns" as const), value }));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${escapeDn(opts.commonName)}, O=${CERT_ORGANIZATION}`,
    issuer: caCert.subject,
    notBefore: opts.notBefore,
    notAfter: opts.notAfter,
    signingKey: caKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
      new x509.SubjectAlternativeNameExtension(names, false),
      await x509.AuthorityKeyIdentifierExtension.create(caCert, false),
    ],
  });
  return { certPem: cert.toString("pem") + "\n", keyPem: await exportKey(keys.privateKey) };
}
