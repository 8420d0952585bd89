// Every request a page makes passes the origin policy, every hop of a redirect included, and so do
// its WebSockets. Playwright calls a route handler for the first URL of a redirect chain only and
// follows the rest itself, so an allowed page answering 302 to a metadata or loopback address would
// be followed unchecked (seen: the redirect target was hit). Requests leaving the worker's own
// origins are therefore fetched here without following redirects; a redirect's target is checked
// before the browser is handed the redirect, and the browser's request for the target comes back
// through this handler as a request of its own.
import type { BrowserContext, Route, WebSocketRoute } from 'playwright-core';
import type { Logger } from 'pino';
import type { OriginPolicy } from '../origin-policy.js';

const REDIRECT = new Set([301, 302, 303, 307, 308]);
/** Redirects that keep the method and body; the others become a GET. */
const SAME_METHOD = new Set([307, 308]);
const MAX_REDIRECTS = 10;

export async function guardEgress(context: BrowserContext, policy: OriginPolicy, ownOrigins: string[], logger: Logger): Promise<void> {
  const own = (url: string) => ownOrigins.some((o) => url.startsWith(`${o}/`) || url === o);
  const refuse = (url: string, reason: string) => logger.warn({ url, reason }, 'request refused by the origin policy');

  // A request can outlive its page: a device reset closes the context while a fetch is still
  // out, and answering the route then throws ("Fetch response has been disposed"). Playwright
  // leaves a handler's rejection unhandled, which stopped a worker and every device on it in a
  // full test run. A failed handler now refuses what it can (a page still there is not left
  // waiting) and logs the rest.
  const handled =
    <T>(handler: (arg: T) => Promise<unknown>, refuseAfterFailure: (arg: T) => Promise<unknown>) =>
    async (arg: T) => {
      try {
        await handler(arg);
      } catch (err) {
        logger.debug({ err: (err as Error).message }, 'a request could not be answered (its page or context may have gone)');
        await refuseAfterFailure(arg).catch(() => undefined);
      }
    };

  await context.route(
    '**/*',
    handled(
      async (route: Route) => {
        const request = route.request();
        let url = request.url();
        if (own(url)) return route.continue();
        const verdict = await policy.verdict(url);
        if (verdict) {
          refuse(url, verdict);
          return route.abort('blockedbyclient');
        }
        // Each hop fetched here, checked before the next: the browser never follows a redirect itself.
        let status = 0;
        for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
          let response;
          try {
            response = await route.fetch(
              hop === 0 ? { maxRedirects: 0 } : { url, maxRedirects: 0, ...(SAME_METHOD.has(status) ? {} : { method: 'GET', postData: '' }) },
            );
          } catch (err) {
            logger.debug({ url, err: (err as Error).message }, 'request failed');
            return route.abort('connectionrefused');
          }
          status = response.status();
          const location = REDIRECT.has(status) ? response.headers().location : undefined;
          if (!location) return route.fulfill({ response });
          let target: string;
          try {
            target = new URL(location, url).toString();
          } catch {
            refuse(url, `a redirect to an unreadable location ${JSON.stringify(location)}`);
            return route.abort('blockedbyclient');
          }
          const onward = await policy.verdict(target);
          if (onward) {
            refuse(target, `redirected from ${url}: ${onward}`);
            return route.abort('blockedbyclient');
          }
          // A page is sent on as a page that moves itself there: a fresh navigation the browser makes
          // through this handler, so the page's address and relative links are the target's. (Handing
          // the browser the 3xx would have it follow the redirect itself, unrouted.)
          if (request.resourceType() === 'document') {
            // Cookies the redirect set are kept (Playwright splits a set-cookie value on newlines).
            const cookies = response
              .headersArray()
              .filter((h) => h.name.toLowerCase() === 'set-cookie')
              .map((h) => h.value);
            const headers: Record<string, string> = {
              'content-type': 'text/html; charset=utf-8',
              'cache-control': 'no-store',
              ...(cookies.length ? { 'set-cookie': cookies.join('\n') } : {}),
            };
            return route.fulfill({ status: 200, headers, body: `<!doctype html><script>location.replace(${JSON.stringify(target)})</script>` });
          }
          url = target;
        }
        refuse(url, `more than ${MAX_REDIRECTS} redirects`);
        return route.abort('failed');
      },
      (route) => route.abort('failed'),
    ),
  );

  await context.routeWebSocket(
    /.*/,
    handled(
      async (ws: WebSocketRoute) => {
        const url = ws.url();
        // The policy speaks http(s); a socket's origin is the same host and port.
        const verdict = own(url.replace(/^ws/, 'http')) ? null : await policy.verdict(url.replace(/^ws/, 'http'));
        if (verdict) {
          refuse(url, verdict);
          return ws.close({ code: 1008, reason: 'refused by the origin policy' });
        }
        ws.connectToServer();
      },
      (ws) => ws.close({ code: 1011, reason: 'the request could not be routed' }),
    ),
  );
}
