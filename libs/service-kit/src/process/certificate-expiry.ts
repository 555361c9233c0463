import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import client from 'prom-client';
import { metricsRegistry } from './metrics';

const watched = new Set<string>();
let registered = false;

/**
 * `clinic_tls_certificate_expiry_seconds{file}`: how long each certificate this process serves or verifies
 * against still runs (read at each scrape, so a renewed file shows at once); negative once expired.
 */
export function reportCertificateExpiry(files: Array<string | undefined>): void {
  for (const file of files) if (file) watched.add(file);
  if (registered) return;
  registered = true;
  new client.Gauge({
    name: 'clinic_tls_certificate_expiry_seconds',
    help: 'Seconds until a TLS certificate this process serves or trusts expires (the first of a chain file)',
    labelNames: ['file'],
    registers: [metricsRegistry],
    collect() {
      this.reset();
      for (const path of watched) {
        try {
          const cert = new X509Certificate(readFileSync(path));
          this.set({ file: basename(path) }, (Date.parse(cert.validTo) - Date.now()) / 1000);
        } catch {
          // A file that cannot be read has no expiry to report; the process's own TLS fails louder.
        }
      }
    },
  });
}
