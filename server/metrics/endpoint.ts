// The metrics endpoint: a small HTTP server of its own on 127.0.0.1:{METRICS_PORT}, never the
// public port, answering GET /metrics with the Prometheus text of one app's registry.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../log.js';
import { errorFields } from '../log.js';
import type { Metrics } from './metrics.js';

export const METRICS_HOST = '127.0.0.1';
export const METRICS_PATH = '/metrics';

export interface MetricsEndpoint {
  /** The port it listens on (METRICS_PORT, or the one the system chose for 0). */
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function startMetricsEndpoint(metrics: Metrics, port: number, log: Logger): Promise<MetricsEndpoint> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== METRICS_PATH) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' })
        .end('Method not allowed\n');
      return;
    }
    metrics.text().then(
      (text) => {
        res.writeHead(200, { 'content-type': metrics.contentType });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (err: unknown) => {
        log.error({ err: errorFields(err) }, 'metrics could not be collected');
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('Metrics could not be collected\n');
      },
    );
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, METRICS_HOST, () => resolve());
  });
  const actual = (server.address() as AddressInfo).port;
  return {
    port: actual,
    url: `http://${METRICS_HOST}:${actual}${METRICS_PATH}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
