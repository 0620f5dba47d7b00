import type { Browser, CDPSession, Page } from '@playwright/test';
import type { Vector } from './corpus.ts';

/** How the HTML reaches the page: assigned to `innerHTML`, or given as an iframe's `srcdoc`. */
export type RenderMode = 'innerHTML' | 'srcdoc';

/** Something that ran or tried to leave the page, attributed to a vector key ('?' when unknown). */
export interface Finding {
  vector: string;
  kind: string;
  detail: string;
}

/** What a run of vectors through Chromium set off. */
export interface Detection {
  /** Calls to the hooked alert/confirm/prompt/print and to the `__xss` marker. */
  hookCalls: Finding[];
  /** Native dialogs that reached the browser (a hook bypassed). */
  dialogs: Finding[];
  /** Scripts compiled from page content (inline scripts, event handlers, external scripts), seen through the debugger. */
  scripts: Finding[];
  /** Requests that tried to leave the page (all were blocked). */
  requests: (Finding & { type: string; url: string })[];
  /** Windows the vectors opened. */
  popups: Finding[];
  /** Harness failures, e.g. when a vector navigated the page away. */
  errors: string[];
  /** Vectors whose frame loaded and received its HTML. */
  rendered: number;
}

/** Every vector key that set off at least one execution (hook, dialog or compiled script). */
export function executedVectors(detection: Detection): Set<string> {
  return new Set([...detection.hookCalls, ...detection.dialogs, ...detection.scripts].map((finding) => finding.vector));
}

/** The number of executions of any kind. */
export function executionCount(detection: Detection): number {
  return detection.hookCalls.length + detection.dialogs.length + detection.scripts.length;
}

const HARNESS_URL = 'inboxkit-xss-harness';
const BINDING = '__inboxkitXssReport';

/**
 * Runs in every frame before its content: hooks the dialogs and the marker so
 * each call is reported with the vector whose frame made it, and keeps clicks
 * on links from leaving the page or opening windows (following a web link is
 * the reader's choice, not script); links to `javascript:`, `vbscript:` and
 * `data:` URLs are still followed, since that is how they run.
 */
const INIT_SCRIPT = `(() => {
  const fallback = window.alert;
  const vectorOf = () => {
    try {
      let w = window;
      for (let depth = 0; depth < 16; depth++) {
        const frame = w.frameElement;
        if (frame && frame.hasAttribute('data-vector')) return frame.getAttribute('data-vector');
        if (w.parent === w) break;
        w = w.parent;
      }
    } catch {}
    return '?';
  };
  const report = (kind) => {
    const binding = window[${JSON.stringify(BINDING)}];
    if (typeof binding === 'function') binding(kind, vectorOf()).catch(() => {});
    else fallback.call(window, 'xss via ' + kind);
  };
  for (const name of ['alert', 'confirm', 'prompt', 'print']) {
    Object.defineProperty(window, name, { value: function () { report(name); return null; }, writable: true, configurable: true });
  }
  Object.defineProperty(window, '__xss', { value: function () { report('__xss'); }, writable: true, configurable: true });
  document.addEventListener('click', (event) => {
    const link = event.target && event.target.closest ? event.target.closest('a[href], area[href]') : null;
    if (link && !['javascript:', 'vbscript:', 'data:'].includes(link.protocol)) event.preventDefault();
  }, true);
})();
//# sourceURL=${HARNESS_URL}`;

const ELEMENT_EVENTS = [
  'mouseover', 'mouseenter', 'mousemove', 'mousedown', 'mouseup', 'dblclick', 'contextmenu', 'auxclick', 'mouseout', 'mouseleave',
  'pointerover', 'pointerenter', 'pointerdown', 'pointermove', 'pointerup', 'pointerout', 'pointerleave',
  'focus', 'focusin', 'blur', 'focusout', 'input', 'beforeinput', 'change', 'keydown', 'keypress', 'keyup', 'select', 'search',
  'submit', 'reset', 'invalid', 'toggle', 'beforetoggle', 'scroll', 'scrollend', 'wheel', 'copy', 'cut', 'paste',
  'drag', 'dragstart', 'dragend', 'dragenter', 'dragover', 'dragleave', 'drop', 'touchstart', 'touchmove', 'touchend',
  'animationstart', 'animationiteration', 'animationend', 'transitionstart', 'transitionend', 'transitionrun',
  'load', 'error', 'abort', 'loadstart', 'canplay', 'play', 'playing', 'ended', 'begin', 'end', 'repeat', 'show', 'cancel', 'close',
];
const WINDOW_EVENTS = ['load', 'pageshow', 'focus', 'blur', 'hashchange', 'popstate', 'message', 'resize', 'scroll', 'error', 'online', 'storage', 'beforeprint', 'afterprint'];

/**
 * Renders each vector in its own iframe of a blank page (either as its `srcdoc`
 * or through `innerHTML` into the iframe's body), then triggers every handler a
 * reader could: focus, mouse, keyboard, pointer, drag, clipboard and load/error
 * events on every element, and clicks (which follow `javascript:` links and
 * submit forms). Every request that leaves the page is blocked and recorded.
 */
async function renderBatch(browser: Browser, vectors: Vector[], mode: RenderMode): Promise<Detection> {
  const detection: Detection = { hookCalls: [], dialogs: [], scripts: [], requests: [], popups: [], errors: [], rendered: 0 };
  const keyOf = (index: string | null | undefined) => (index != null && vectors[Number(index)] ? vectors[Number(index)]!.key : '?');
  const context = await browser.newContext({ javaScriptEnabled: true });
  try {
    const page = await context.newPage();
    context.on('page', (popup) => {
      detection.popups.push({ vector: '?', kind: 'popup', detail: popup.url() });
      void popup.close().catch(() => {});
    });
    await context.route('**/*', async (route) => {
      const request = route.request();
      let vector = '?';
      try {
        let frame = request.frame();
        while (frame.parentFrame() && frame.parentFrame() !== page.mainFrame()) frame = frame.parentFrame()!;
        vector = keyOf(/^vector-(\d+)$/.exec(frame.name())?.[1]);
      } catch {}
      detection.requests.push({ vector, kind: 'request', type: request.resourceType(), url: request.url(), detail: `${request.resourceType()} ${request.url().slice(0, 120)}` });
      await route.abort(request.isNavigationRequest() ? 'aborted' : 'blockedbyclient').catch(() => {});
    });
    page.on('dialog', (dialog) => {
      detection.dialogs.push({ vector: '?', kind: `native ${dialog.type()}`, detail: dialog.message() });
      void dialog.dismiss().catch(() => {});
    });
    await page.exposeBinding(BINDING, (_source, kind: string, index: string) => {
      detection.hookCalls.push({ vector: keyOf(index), kind, detail: '' });
    });
    await page.addInitScript(INIT_SCRIPT);
    const cdp = await watchScripts(page, detection, keyOf);

    await page.setContent('<!DOCTYPE html><html><head><title>xss harness</title></head><body></body></html>');
    const run = async (step: string, action: () => Promise<unknown>) => {
      try {
        await action();
      } catch (error) {
        detection.errors.push(`${step}: ${String(error).split('\n')[0]}`);
      }
    };
    await run('render', async () => {
      detection.rendered = await page.evaluate(renderInPage, { htmls: vectors.map((vector) => vector.html), mode });
    });
    await run('interact', () => page.evaluate(interactInPage, { elementEvents: ELEMENT_EVENTS, windowEvents: WINDOW_EVENTS }));
    await run('settle', () => page.evaluate(settleInPage));
    await run('frames', () => cdp.resolveFrames());
    await cdp.session.detach().catch(() => {});
  } finally {
    await context.close();
  }
  return detection;
}

/** Counts scripts compiled from page content with the debugger and attributes them to vectors through the frame tree. */
async function watchScripts(page: Page, detection: Detection, keyOf: (index: string | undefined) => string) {
  const session: CDPSession = await page.context().newCDPSession(page);
  const parents = new Map<string, string | undefined>();
  const names = new Map<string, string>();
  const pending: { frameId: string; url: string }[] = [];
  session.on('Page.frameAttached', (event) => parents.set(event.frameId, event.parentFrameId));
  session.on('Page.frameNavigated', (event) => {
    parents.set(event.frame.id, event.frame.parentId);
    if (event.frame.name) names.set(event.frame.id, event.frame.name);
  });
  session.on('Debugger.scriptParsed', (event) => {
    // Playwright's own evaluations carry no URL, the harness has its own; page content carries its document's.
    if (event.url === '' || event.url === HARNESS_URL) return;
    const aux = event.executionContextAuxData as { frameId?: string } | undefined;
    pending.push({ frameId: aux?.frameId ?? '', url: event.url });
  });
  await session.send('Page.enable');
  await session.send('Debugger.enable');
  await session.send('Debugger.setSkipAllPauses', { skip: true });
  return {
    session,
    async resolveFrames() {
      const vectorOfFrame = (frameId: string): string => {
        for (let id: string | undefined = frameId, depth = 0; id && depth < 32; id = parents.get(id), depth++) {
          const match = /^vector-(\d+)$/.exec(names.get(id) ?? '');
          if (match) return keyOf(match[1]);
        }
        return '?';
      };
      for (const script of pending) detection.scripts.push({ vector: vectorOfFrame(script.frameId), kind: 'script', detail: script.url.slice(0, 120) });
    },
  };
}

// The functions below run inside the page: no closures over test code.

async function renderInPage({ htmls, mode }: { htmls: string[]; mode: RenderMode }): Promise<number> {
  const blank = '<!DOCTYPE html><html><head></head><body></body></html>';
  const loaded = (iframe: HTMLIFrameElement) =>
    new Promise<boolean>((resolve) => {
      iframe.addEventListener('load', () => resolve(true), { once: true });
      setTimeout(() => resolve(false), 5000);
    });
  const rendered = await Promise.all(
    htmls.map(async (html, index) => {
      const iframe = document.createElement('iframe');
      iframe.setAttribute('data-vector', String(index));
      iframe.name = `vector-${index}`;
      iframe.srcdoc = mode === 'srcdoc' ? html : blank;
      const done = loaded(iframe);
      document.body.append(iframe);
      if (!(await done)) return false;
      if (mode === 'srcdoc') return true;
      try {
        iframe.contentDocument!.body.innerHTML = html;
        return true;
      } catch {
        return false;
      }
    }),
  );
  return rendered.filter(Boolean).length;
}

async function interactInPage({ elementEvents, windowEvents }: { elementEvents: string[]; windowEvents: string[] }): Promise<void> {
  // Each in-page function walks the frames itself: evaluate ships one function's source only.
  const documents: Document[] = [];
  const visit = (doc: Document, depth: number) => {
    documents.push(doc);
    if (depth > 8) return;
    for (const frame of doc.querySelectorAll('iframe, frame')) {
      try {
        const inner = (frame as HTMLIFrameElement).contentDocument;
        if (inner) visit(inner, depth + 1);
      } catch {}
    }
  };
  for (const iframe of document.querySelectorAll('iframe[data-vector]')) {
    try {
      const inner = (iframe as HTMLIFrameElement).contentDocument;
      if (inner) visit(inner, 0);
    } catch {}
  }
  for (const doc of documents) {
    const win = doc.defaultView;
    if (!win) continue;
    for (const type of windowEvents) {
      try {
        win.dispatchEvent(new win.Event(type));
      } catch {}
    }
    for (const element of [...doc.querySelectorAll('*')]) {
      try {
        (element as HTMLElement).focus?.();
      } catch {}
      for (const type of elementEvents) {
        try {
          element.dispatchEvent(new win.Event(type, { bubbles: true, cancelable: true }));
        } catch {}
      }
      try {
        // A real MouseEvent click runs activation behaviour: links are followed, forms submitted.
        element.dispatchEvent(new win.MouseEvent('click', { bubbles: true, cancelable: true, view: win }));
      } catch {}
    }
  }
}

async function settleInPage(): Promise<void> {
  const documents: Document[] = [];
  const visit = (doc: Document, depth: number) => {
    documents.push(doc);
    if (depth > 8) return;
    for (const frame of doc.querySelectorAll('iframe, frame')) {
      try {
        const inner = (frame as HTMLIFrameElement).contentDocument;
        if (inner) visit(inner, depth + 1);
      } catch {}
    }
  };
  visit(document, 0);
  const images = documents.flatMap((doc) => [...doc.images]).filter((image) => !image.complete);
  await Promise.all(
    images.map(
      (image) =>
        new Promise<void>((resolve) => {
          image.addEventListener('load', () => resolve(), { once: true });
          image.addEventListener('error', () => resolve(), { once: true });
          setTimeout(resolve, 2000);
        }),
    ),
  );
  // Let handlers queued by the events above (and timers of a few frames) run.
  await new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve())));
  await new Promise<void>((resolve) => setTimeout(resolve, 100));
}

/** Renders vectors in batches (one fresh browser context per batch) and merges what they set off. */
export async function detect(browser: Browser, vectors: Vector[], mode: RenderMode, batchSize = 80): Promise<Detection> {
  const total: Detection = { hookCalls: [], dialogs: [], scripts: [], requests: [], popups: [], errors: [], rendered: 0 };
  for (let start = 0; start < vectors.length; start += batchSize) {
    const batch = await renderBatch(browser, vectors.slice(start, start + batchSize), mode);
    total.hookCalls.push(...batch.hookCalls);
    total.dialogs.push(...batch.dialogs);
    total.scripts.push(...batch.scripts);
    total.requests.push(...batch.requests);
    total.popups.push(...batch.popups);
    total.errors.push(...batch.errors);
    total.rendered += batch.rendered;
  }
  return total;
}

