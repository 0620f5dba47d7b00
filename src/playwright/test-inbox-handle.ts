/**
 * The handle a {@link TestInbox} waits through: the client's `InboxHandle`
 * whose waits build each message once, as the `TestMessage` the test receives.
 *
 * @packageDocumentation
 */
import { InboxHandle } from '../client/index.ts';
import type { Message, ReceivedMessage } from '../client/index.ts';
import type { TestInboxContext } from './test-inbox.ts';
import { TestMessage } from './test-message.ts';

/** An inbox handle whose waits return `TestMessage`s. */
export class TestInboxHandle extends InboxHandle {
  readonly #context: TestInboxContext;

  /** The same inbox as `handle`, through the same client and token. */
  constructor(handle: InboxHandle, context: TestInboxContext) {
    super(handle.client, handle.data, handle.token);
    this.#context = context;
  }

  protected override wrapMessage(data: Message): ReceivedMessage {
    const context = this.#context;
    return new TestMessage(this, data, context.linkCheck ?? null, { dns: context.dns, browser: context.renderBrowser ?? null });
  }
}
